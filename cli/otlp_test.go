package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
	"github.com/evalsched/lab/workloads"
	"github.com/google/go-cmp/cmp"
)

const otlpScenario = "testdata/otlp-roundtrip.yaml"

// rtCall and rtJob are a job plan in a form both sides reduce to: per
// turn its calls (in, out, cache read, cache write, max_tokens) sorted,
// since the importer orders a turn's calls by when they ended, and the
// tool time after it.
type rtCall [5]int

type rtTurn struct {
	Calls []rtCall
	Tool  time.Duration
}

type rtJob struct {
	Model, Project string
	Turns          []rtTurn
}

// TestOTLPRoundTrip: sim run --otlp, then sim trace import --from otlp of
// that file, gives back the plan of every job the run finished. The
// expected plans are drawn independently of the world and the exporter:
// the jobs from the scenario's generator, each job's agent loop replayed
// with workloads.Agent (what a job does never depends on the policy),
// and the cache read of each call from the world's event log of a second,
// identical run (cache reads depend on timing). The importer measures the
// tool time between turns, so the last turn's tool step is not in the
// plan it gives back; engine times are whole microseconds.
func TestOTLPRoundTrip(t *testing.T) {
	dir := t.TempDir()
	spans := filepath.Join(dir, "spans.jsonl")
	if out, stderr, code := runSim(t, "run", "--scenario", otlpScenario, "--seed", "3", "--out", filepath.Join(dir, "out"), "--otlp", spans); code != 0 {
		t.Fatalf("run: exit %d: %s%s", code, out, stderr)
	}
	jobs := filepath.Join(dir, "jobs.jsonl")
	if out, stderr, code := runSim(t, "trace", "import", "--from", "otlp", "--scenario", otlpScenario, "--out", jobs, spans); code != 0 {
		t.Fatalf("import: exit %d: %s%s", code, out, stderr)
	}
	got := readRoundTripJobs(t, jobs)

	sc, err := scenario.LoadScenario(otlpScenario)
	if err != nil {
		t.Fatal(err)
	}
	want, caching := expectedPlans(t, sc, 3)
	if len(got) < 50 {
		t.Fatalf("%d jobs imported: the scenario should finish more", len(got))
	}
	for id, g := range got {
		w, ok := want[id]
		if !ok {
			t.Errorf("imported job %s is not a job of the run", id)
			continue
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("job %s (-executed +imported):\n%s", id, diff)
		}
	}
	// The scenario exercises what the file must carry: retries after
	// 429s, cache reads, several models.
	data, err := os.ReadFile(spans)
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]bool{}
	for _, j := range got {
		models[j.Model] = true
	}
	if n := strings.Count(string(data), `"provider.rate_limited"`); n == 0 || caching == 0 || len(models) < 3 {
		t.Errorf("the run had %d 429 events, %d cache-read calls, %d models: want all", n, caching, len(models))
	}
}

// readRoundTripJobs reads an imported job trace into rtJobs by job id.
func readRoundTripJobs(t *testing.T, path string) map[string]rtJob {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]rtJob{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec struct {
			ID, Model, Project string
			Plan               []struct {
				Calls [][]int     `json:"calls"`
				Tool  json.Number `json:"tool_s"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		j := rtJob{Model: rec.Model, Project: rec.Project}
		for _, tr := range rec.Plan {
			var turn rtTurn
			for _, c := range tr.Calls {
				var rc rtCall
				copy(rc[:], c)
				turn.Calls = append(turn.Calls, rc)
			}
			if tr.Tool != "" {
				if turn.Tool, err = time.ParseDuration(string(tr.Tool) + "s"); err != nil {
					t.Fatal(err)
				}
			}
			slices.SortFunc(turn.Calls, cmpCall)
			j.Turns = append(j.Turns, turn)
		}
		out[rec.ID] = j
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func cmpCall(a, b rtCall) int { return slices.Compare(a[:], b[:]) }

// expectedPlans is every generated job's plan, by the id the export gives
// it, and how many calls read the cache.
func expectedPlans(t *testing.T, sc *scenario.Scenario, seed uint64) (map[string]rtJob, int) {
	t.Helper()
	pol, err := scenario.NewPolicy("fixed-lane", sc)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sim.NewWorld(sc, sim.Options{Seed: seed, Policy: pol, Log: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	reads := map[int64][]int32{} // job → its calls' cache reads, in call order
	for _, r := range w.Log() {
		if r.Event == sim.LogCallAccept {
			reads[int64(r.Job)] = append(reads[int64(r.Job)], r.CacheRead)
		}
	}
	// The log is in time order; a job's calls are made in serial order
	// but may be accepted in another, so order them by serial.
	serials := map[int64][]int64{}
	for _, r := range w.Log() {
		if r.Event == sim.LogCallAccept {
			serials[int64(r.Job)] = append(serials[int64(r.Job)], r.Call)
		}
	}
	for j, s := range serials {
		idx := make([]int, len(s))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return int(s[a] - s[b]) })
		r := make([]int32, len(s))
		for i, k := range idx {
			r[i] = reads[j][k]
		}
		reads[j] = r
	}
	caches := map[int]bool{} // models whose organisation caches (the scenario's anthropic preset)
	for i, m := range sc.Catalogue() {
		caches[i] = m == "m-a" || m == "m-b"
	}
	// The preset's minimum cacheable prompt (read 2026-12-06): a shorter
	// prompt is neither written nor read.
	const minCached = 1024

	gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, seed)
	if err != nil {
		t.Fatal(err)
	}
	src := rand.NewPCG(0, 0)
	want, cached := map[string]rtJob{}, 0
	for id := int64(0); ; id++ {
		job, ok := gen.Next()
		if !ok {
			break
		}
		if job.Judge >= 0 {
			t.Fatal("the scenario has grading jobs: the export's job ids would not follow the generator's")
		}
		var a workloads.Agent
		a.Start(job.Behaviour, job.Seed, src)
		j := rtJob{Model: sc.Catalogue()[job.Model], Project: job.Project}
		k := 0
		for {
			n, ok := a.NextTurn(src)
			if !ok {
				break
			}
			var turn rtTurn
			for range n {
				in, out, _ := a.NextCall(src)
				c := rtCall{in, out, 0, 0, a.MaxTokens()}
				if r := reads[id]; caches[job.Model] && k < len(r) && in >= minCached {
					c[2], c[3] = int(r[k]), in-int(r[k])
					if r[k] > 0 {
						cached++
					}
				}
				k++
				turn.Calls = append(turn.Calls, c)
			}
			turn.Tool = time.Duration(sim.FromDuration(a.EndTurn())) * time.Microsecond
			slices.SortFunc(turn.Calls, cmpCall)
			j.Turns = append(j.Turns, turn)
		}
		j.Turns[len(j.Turns)-1].Tool = 0
		want[results.ConversationID("fixed-lane", id)] = j
	}
	return want, cached
}

// TestOTLPDeterministic: the same seed writes the same bytes, the run's
// other outputs are those of a run without --otlp, and compare writes
// each policy's run as resources of its own service.name, the baseline's
// jobs first, with trace ids that differ between the runs.
func TestOTLPDeterministic(t *testing.T) {
	dir := t.TempDir()
	var files [3][]byte
	for i := range files {
		cmd := "run"
		if i == 2 {
			cmd = "compare"
		}
		path := filepath.Join(dir, "spans.jsonl")
		if out, stderr, code := runSim(t, cmd, "--scenario", otlpScenario, "--out", filepath.Join(dir, fmt.Sprintf("out-%d", i)), "--otlp", path); code != 0 {
			t.Fatalf("%s: exit %d: %s%s", cmd, code, out, stderr)
		}
		var err error
		if files[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	if string(files[0]) != string(files[1]) {
		t.Error("two runs of the same seed wrote different span files")
	}
	plain := filepath.Join(dir, "plain")
	if out, stderr, code := runSim(t, "run", "--scenario", otlpScenario, "--out", plain); code != 0 {
		t.Fatalf("run: exit %d: %s%s", code, out, stderr)
	}
	for _, name := range []string{"summary.json", "series.csv", "batches.csv"} {
		with, err1 := os.ReadFile(filepath.Join(dir, "out-0", name))
		without, err2 := os.ReadFile(filepath.Join(plain, name))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if string(with) != string(without) {
			t.Errorf("%s of a run with --otlp differs from that of a run without", name)
		}
	}
	var services []string
	traces := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(files[2]), "\n"), "\n") {
		var req struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []struct {
						Key   string
						Value struct{ StringValue string }
					}
				}
				ScopeSpans []struct{ Spans []struct{ TraceID string } }
			}
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatal(err)
		}
		rs := req.ResourceSpans[0]
		svc := rs.Resource.Attributes[0].Value.StringValue
		if n := len(services); n == 0 || services[n-1] != svc {
			services = append(services, svc)
		}
		id := rs.ScopeSpans[0].Spans[0].TraceID
		if other, ok := traces[id]; ok && other != svc {
			t.Errorf("trace %s in both %s and %s", id, other, svc)
		}
		traces[id] = svc
	}
	if diff := cmp.Diff([]string{"fixed-lane", "scheduler"}, services); diff != "" {
		t.Errorf("compare's resources in file order (-want +got):\n%s", diff)
	}
}
