package agentlog

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

type kv struct{ K, V string }

// sortRecords runs records through a sorter of the budget and returns
// them in the order it gives, and how many runs it wrote.
func sortRecords(t testing.TB, dir string, budget int, recs []kv) ([]kv, int) {
	s := newSorter(dir, budget)
	defer s.close()
	for _, r := range recs {
		if err := s.add([]byte(r.K), []byte(r.V)); err != nil {
			t.Fatal(err)
		}
	}
	runs := len(s.runs)
	var out []kv
	if err := s.each(func(k, v []byte) error {
		out = append(out, kv{string(k), string(v)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out, runs
}

// TestSorter: the external sort gives what a stable in-memory sort gives,
// in memory, spilled to a few runs, and spilled to more runs than it
// merges at once (merged in passes); its temporary files are gone after.
func TestSorter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var recs []kv
	for i := range 5000 {
		k := make([]byte, rng.IntN(4))
		for j := range k {
			k[j] = byte(rng.IntN(3)) // 0x00 bytes, repeats and prefixes of each other
		}
		recs = append(recs, kv{string(k), string(rune('a' + i%26))})
	}
	want := slices.Clone(recs)
	slices.SortStableFunc(want, func(a, b kv) int { return bytes.Compare([]byte(a.K), []byte(b.K)) })
	for _, tc := range []struct {
		name     string
		budget   int
		runsFrom int // at least this many runs
	}{
		{"in memory", 1 << 20, 0},
		{"a few runs", 20000, 2},
		{"merged in passes", 300, mergeFanIn + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			got, runs := sortRecords(t, dir, tc.budget, recs)
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("(-stable sort +sorter):\n%s", diff)
			}
			if runs < tc.runsFrom || (tc.runsFrom == 0 && runs != 0) {
				t.Errorf("%d runs written, want at least %d (none when in memory)", runs, tc.runsFrom)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%d temporary files left", len(left))
			}
		})
	}
}

// TestKeyOrder: the key encodings order as their values do.
func TestKeyOrder(t *testing.T) {
	strs := []string{"", "\x00", "\x00\x00", "\x00\x01", "\x00\xff", "a", "a\x00", "a\x00b", "ab", "b", "\xff"}
	ints := []int64{-1 << 63, -5, -1, 0, 1, 7, 1<<63 - 1}
	type pair struct {
		s string
		n int64
	}
	var pairs []pair
	for _, s := range strs {
		for _, n := range ints {
			pairs = append(pairs, pair{s, n})
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	byKey := slices.Clone(pairs)
	slices.SortFunc(byKey, func(a, b pair) int {
		return bytes.Compare(keyInt(keyStr(nil, a.s), a.n), keyInt(keyStr(nil, b.s), b.n))
	})
	byValue := slices.Clone(pairs)
	slices.SortFunc(byValue, func(a, b pair) int {
		if a.s != b.s {
			if a.s < b.s {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.n, b.n)
	})
	if !slices.Equal(byKey, byValue) {
		t.Errorf("key order %v\nwant %v", byKey, byValue)
	}
	for _, s := range strs {
		if got, rest := splitKeyStr(keyInt(keyStr(nil, s), 5)); got != s || len(rest) != 8 {
			t.Errorf("splitKeyStr(keyStr(%q)) = %q, %d bytes after", s, got, len(rest))
		}
	}
}

// FuzzSorter: any records (keys and values cut from the input) come out
// of a spilling sorter as a stable sort orders them.
func FuzzSorter(f *testing.F) {
	f.Add([]byte("b\x00a\x00\x00c\x00a\x00b\x00\x00\x00"), uint16(40))
	f.Fuzz(func(t *testing.T, data []byte, budget uint16) {
		parts := bytes.Split(data, []byte{0})
		var recs []kv
		for i := 0; i+1 < len(parts); i += 2 {
			recs = append(recs, kv{string(parts[i]), string(parts[i+1])})
		}
		want := slices.Clone(recs)
		slices.SortStableFunc(want, func(a, b kv) int { return bytes.Compare([]byte(a.K), []byte(b.K)) })
		got, _ := sortRecords(t, t.TempDir(), int(budget)+1, recs)
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("(-stable sort +sorter):\n%s", diff)
		}
	})
}
