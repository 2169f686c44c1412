package yamltree

import "testing"

// TestLine: a field path reaches the line of its deepest part present,
// through keys with dots in them (model names) and list indexes.
func TestLine(t *testing.T) {
	text := "a: 1\nmodels:\n  gpt-5.5: {x: 1}\n  gpt-5:\n    x: 2\nlist:\n  - {m: 1}\n  - m: 2\n    n: 3\n"
	root := parse(t, text)
	for _, tc := range []struct {
		path string
		want int
	}{
		{"a", 1},
		{"models.gpt-5.5", 3}, // the longest key that matches, not gpt-5
		{"models.gpt-5.x", 5}, // the shorter key where the longer does not match
		{"list[0]", 7},
		{"list[1].n", 9},
		{"list[1].missing", 8}, // the deepest part there
		{"list[7].m", 6},       // an index past the list: the list's key
		{"nowhere", 0},
	} {
		if got := Line(root, tc.path); got != tc.want {
			t.Errorf("Line(%q) = %d, want %d", tc.path, got, tc.want)
		}
	}
}

// TestPathAtLine: the deepest key on a line, or the one named there when a
// flow mapping holds several.
func TestPathAtLine(t *testing.T) {
	root := parse(t, "a:\n  b: 1\nlist:\n  - {x: 1, y: 2}\n  - name: n\n    deep: {z: 3}\n")
	for _, tc := range []struct {
		line       int
		name, want string
	}{
		{1, "", "a"}, {2, "", "a.b"}, {4, "", "list[0].x"}, {4, "y", "list[0].y"}, {5, "", "list[1].name"},
		{6, "", "list[1].deep.z"}, {6, "deep", "list[1].deep"}, {4, "nope", ""}, {9, "", ""},
	} {
		if got := PathAtLine(root, tc.line, tc.name); got != tc.want {
			t.Errorf("PathAtLine(%d, %q) = %q, want %q", tc.line, tc.name, got, tc.want)
		}
	}
}
