package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalsched/lab/scenario"
)

// TestDecisionsIgnoreRecorder: the recorder observes and never writes back.
// A run with the recorder's fairness bookkeeping switched off makes the
// same decisions: every job and call event in the log (arrivals, starts,
// tries, finishes, grading jobs in their parents' projects) is the same.
// Were job identity read back from the recorder, the blind run would lose
// its grading jobs' projects and batches.
func TestDecisionsIgnoreRecorder(t *testing.T) {
	for _, policy := range scenario.PolicyNames() {
		for _, named := range []bool{false, true} {
			name := policy
			if named {
				name += "/name-lookup"
			}
			t.Run(name, func(t *testing.T) {
				sc := smallScenario(t, nil)
				run := func(blind bool) *World {
					return runWorld(t, sc, policy, Options{Seed: 1, Log: true}, func(w *World) {
						w.rec.blind = blind
						if named {
							w.ids.uniqueNames = false
						}
					})
				}
				seeing, blind := run(false), run(true)
				grading := 0
				for _, r := range seeing.Log() {
					if r.Grading && r.Event == LogJobArrive {
						grading++
					}
				}
				if grading == 0 {
					t.Fatal("no grading job arrived: the test checks no identity a job inherits")
				}
				// slices.Equal first: cmp.Diff over the whole log by
				// reflection was most of the test's CPU.
				if !slices.Equal(seeing.Log(), blind.Log()) {
					t.Errorf("event log, recorder observing vs blind (-want +got):\n%s", cmp.Diff(seeing.Log(), blind.Log()))
				}
				if diff := cmp.Diff(seeing.Counts(), blind.Counts()); diff != "" {
					t.Errorf("counts (-want +got):\n%s", diff)
				}
				if len(blind.Fairness().Windows) != 0 {
					t.Error("the blind run measured fairness windows: the recorder was not blind")
				}
			})
		}
	}
}

// TestIdentityKeysMatchInterning: account and project keys, with their
// last-name shortcut, are those of plain interning in order of first
// appearance, for names repeated in runs, alternating and coming back.
func TestIdentityKeysMatchInterning(t *testing.T) {
	names := []string{"a", "a", "b", "b", "a", "c", "ab", "ab", "b", "", "", "c", "a"}
	id := newIdentity()
	var gotA, gotP, want []int32
	seen := map[string]int32{}
	for _, n := range names {
		k, ok := seen[n]
		if !ok {
			k = int32(len(seen))
			seen[n] = k
		}
		want = append(want, k)
		gotA = append(gotA, id.account(n))
		gotP = append(gotP, id.project(n))
	}
	if d := cmp.Diff(want, gotA); d != "" {
		t.Errorf("account keys (-interning +account):\n%s", d)
	}
	if d := cmp.Diff(want, gotP); d != "" {
		t.Errorf("project keys (-interning +project):\n%s", d)
	}
	for n, k := range seen {
		if id.projectName(k) != n {
			t.Errorf("projectName(%d) = %q, want %q", k, id.projectName(k), n)
		}
	}
}

// TestSameStringIsEqual: sameString is ==, for strings that share their
// bytes (whole or a prefix), equal strings apart, and different ones.
func TestSameStringIsEqual(t *testing.T) {
	base := "proj-0042"
	apart := string([]byte(base)) // equal, other bytes
	strs := []string{"", base, base[:4], base[:0], apart, apart[:4], "proj-0043", "x", strings.Repeat("proj-0042", 1)[:9]}
	for _, a := range strs {
		for _, b := range strs {
			if got, want := sameString(a, b), a == b; got != want {
				t.Errorf("sameString(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}
