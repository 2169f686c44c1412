package enum

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

type colour string

func TestOf(t *testing.T) {
	set := []colour{"red", "green"}
	for _, tc := range []struct {
		in   string
		want colour
		ok   bool
	}{
		{"red", "red", true},
		{"green", "green", true},
		{"Red", "", false},
		{"", "", false},
		{"blue", "", false},
	} {
		got, ok := Of(set, tc.in)
		if diff := cmp.Diff([2]any{tc.want, tc.ok}, [2]any{got, ok}); diff != "" {
			t.Errorf("Of(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestList(t *testing.T) {
	for _, tc := range []struct {
		set  []colour
		want string
	}{
		{nil, ""},
		{[]colour{"a"}, "a"},
		{[]colour{"a", "b"}, "a or b"},
		{[]colour{"a", "b", "c"}, "a, b or c"},
	} {
		if got := List(tc.set); got != tc.want {
			t.Errorf("List(%q) = %q, want %q", tc.set, got, tc.want)
		}
	}
}
