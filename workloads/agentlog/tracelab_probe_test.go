package agentlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTraceLabNotRounds: a file none of whose first 10 records is a
// TraceLab round (an Inspect .json log, say: 3,596 skipped lines before)
// is refused once, naming the file and its first problem; a file with a
// round among its first 10 records keeps a skipped line per bad record,
// in order.
func TestTraceLabNotRounds(t *testing.T) {
	dir := t.TempDir()
	notRound := `{"x": 1}` + "\n"
	good := round("s1", 0, nil)
	unusable := round("s2", 0, func(r map[string]any) { r["input_tokens_total"] = -1 })
	const refused = ": not a TraceLab round trace: none of its first %s records is a round (an object with session_id, round_index, model, input_tokens_total and output_tokens); line 1: "
	type result struct {
		IDs     []string
		Skipped []string
		Err     string
	}
	for _, tc := range []struct {
		name  string
		files []string // texts, written as f0.jsonl, f1.jsonl, ...
		want  result
	}{
		{"an Inspect .json log", []string{"{\n  \"version\": 2,\n  \"eval\": {}\n" + strings.Repeat("  \"x\": 1,\n", 20) + "}\n"},
			result{Err: "f0.jsonl" + strings.Replace(refused, "%s", "10", 1) + "record: unexpected end of JSON input"}},
		{"12 objects that are not rounds", []string{strings.Repeat(notRound, 12)},
			result{Err: "f0.jsonl" + strings.Replace(refused, "%s", "10", 1) + "session_id: missing"}},
		{"3 records, none a round", []string{strings.Repeat(notRound, 3)},
			result{Err: "f0.jsonl" + strings.Replace(refused, "%s", "3", 1) + "session_id: missing"}},
		{"10 not rounds, then a round", []string{strings.Repeat(notRound, 10) + good},
			result{Err: "f0.jsonl" + strings.Replace(refused, "%s", "10", 1) + "session_id: missing"}},
		{"two bad records, a round, a bad one", []string{notRound + "[1]\n" + good + notRound},
			result{IDs: []string{"s1"}, Skipped: []string{"f0.jsonl:1: session_id: missing", "f0.jsonl:2: record: want an object, got a JSON array", "f0.jsonl:4: session_id: missing"}}},
		{"only an unusable round: skipped, not refused", []string{unusable},
			result{Skipped: []string{"f0.jsonl:1: record: inconsistent tokens (input -1, output 10, cache read 0, cache write 0)"}}},
		{"the same file twice: its rounds repeat, not refused", []string{good, good},
			result{IDs: []string{"s1"}, Skipped: []string{"f1.jsonl:1: round_index: round 0 of session s1 repeated (first at " + dir + "/f0.jsonl:1)"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var paths []string
			for i, text := range tc.files {
				p := filepath.Join(dir, "f"+itoa(i)+".jsonl")
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
			ids, skipped, err := readAll(t, TraceLab, paths...)
			got := result{IDs: ids}
			for _, s := range skipped {
				got.Skipped = append(got.Skipped, strings.TrimPrefix(s, dir+"/"))
			}
			if err != nil {
				got.Err = strings.TrimPrefix(err.Error(), dir+"/")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
