package extpolicy

import (
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"python3 ref.py scheduler", []string{"python3", "ref.py", "scheduler"}},
		{"  a\t b  ", []string{"a", "b"}},
		{`sh -c 'tee in | python3 x.py'`, []string{"sh", "-c", "tee in | python3 x.py"}},
		{`a "b \"c\" d" e\ f`, []string{"a", `b "c" d`, "e f"}},
		{`x''y ""`, []string{"xy", ""}},
	} {
		got, err := Words(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`a 'b`, `a "b`} {
		if _, err := Words(bad); err == nil {
			t.Errorf("Words(%q): no error", bad)
		}
	}
}
