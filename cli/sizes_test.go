package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseBytes: binary and SI units, bytes and plain numbers; nonsense
// refused.
func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"8GiB", 8 << 30, true}, {"512MiB", 512 << 20, true}, {"64KiB", 64 << 10, true}, {"1TiB", 1 << 40, true},
		{"10MB", 10_000_000, true}, {"2GB", 2_000_000_000, true}, {"64kB", 64_000, true}, {"64KB", 64_000, true}, {"1TB", 1_000_000_000_000, true},
		{"100B", 100, true}, {"1000000", 1_000_000, true}, {"0", 0, true}, {"1.5GB", 1_500_000_000, true},
		{"10 MB", 10_000_000, true},
		{"", 0, false}, {"MB", 0, false}, {"-1MB", 0, false}, {"10XB", 0, false}, {"ten", 0, false},
	} {
		got, err := parseBytes(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("%q: error %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, diff)
		}
	}
}
