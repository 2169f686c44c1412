package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalsched/lab/internal/jsonschema"
)

// TestExecMessagesMatchSchema: every message the lab sends in a run (and
// every one the reference client answers) is valid against
// docs/reference/policy-protocol.schema.json. The run has quotas, so
// decide carries the quota and latency columns.
func TestExecMessagesMatchSchema(t *testing.T) {
	needPython(t)
	doc, err := os.ReadFile("../docs/reference/policy-protocol.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, policy := range []string{"fixed-lane", "scheduler"} {
		dir := t.TempDir()
		in, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
		cmd := "exec:sh -c 'tee " + in + " | " + python + " " + reference + " " + policy + " | tee " + out + "'"
		if _, stderr, code := runSim(t, "run", "--scenario", "testdata/small.yaml", "--policy", cmd, "--out", filepath.Join(dir, "run")); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		kinds := map[string]int{}
		for _, f := range []struct{ file, def string }{{in, "lab_message"}, {out, "policy_message"}} {
			fh, err := os.Open(f.file)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(fh)
			sc.Buffer(nil, 64<<20)
			for n := 1; sc.Scan(); n++ {
				if err := schema.Validate(f.def, sc.Bytes()); err != nil {
					t.Fatalf("%s: %s line %d: %v\n%.300s", policy, filepath.Base(f.file), n, err, sc.Text())
				}
				kinds[f.def]++
			}
			fh.Close()
		}
		if kinds["lab_message"] < 100 || kinds["policy_message"] < 10 {
			t.Fatalf("%s: too few messages checked: %v", policy, kinds)
		}
		t.Logf("%s: %v messages valid", policy, kinds)
	}
}
