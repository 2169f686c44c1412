package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTraceValidateNoRecords: a job trace with no record is refused by
// validate in every format, naming the file, as compare refuses it (it
// passed as "0 records, 0 good, 0 bad", exit 0, for .jsonl and a
// header-only .csv).
func TestTraceValidateNoRecords(t *testing.T) {
	dir := t.TempDir()
	const header = "v,id,arrival_s,account,project,batch,account_tier,project_tier,batch_tier,model,grading,class,seed,plan\n"
	for _, tc := range []struct {
		name, file, text string
		want             string // after the directory
	}{
		{"empty .jsonl", "e.jsonl", "", "e.jsonl: no jobs: the trace holds no record"},
		{"blank .jsonl", "b.jsonl", "\n\n", "b.jsonl: no jobs: the trace holds no record"},
		{"header-only .csv", "h.csv", header, "h.csv: no jobs: the trace holds no record"},
		{"empty .csv", "e.csv", "", "e.csv:1: header: empty file (want a header row: " + strings.TrimSuffix(header, "\n") + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := runTrace(t, "validate", p)
			got := ""
			if err != nil {
				got = strings.TrimPrefix(err.Error(), dir+"/")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if out != "" {
				t.Errorf("refused, yet printed %q", out)
			}
		})
	}
}
