package workloads

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var testCatalogue = []string{"m-a", "m-b", "m-c", "m-d", "m-e", "judge"}

// testConfig exercises every part of a job: tiers at each level and pins,
// hot and Zipf models, three classes, grading with a named class and with
// the default single call.
func testConfig() Config {
	return Config{
		Accounts: 6, ProjectsPerAccount: 3,
		Tiers: TierConfig{Account: []float64{0.2, 0.3, 0.5}, ProjectOverride: 0.3, BatchOverride: 0.3,
			Pinned: map[string]int{"acct-001": 1}},
		Models:     ModelMix{Hot: []string{"m-a", "m-b"}, HotShare: 0.5, ZipfS: 1.4},
		Batches:    BatchProcess{RatePerHour: 20, Size: Dist{Kind: "pareto", Min: 5, Max: 200, Alpha: 1.3}, Bursts: []Burst{{At: 10 * time.Minute, Batches: 3, Spread: time.Minute}}},
		Background: BatchProcess{RatePerHour: 60, Size: Dist{Kind: "uniform", Min: 1, Max: 5}},
		Behaviours: map[string]Behaviour{
			"agentic": {
				Turns: Dist{Kind: "pareto", Min: 2, Max: 30, Alpha: 1.3}, Fanout: Dist{Kind: "uniform", Min: 1, Max: 3},
				OutputTokens: Dist{Kind: "lognormal", Median: 300, Sigma: 0.5}, ToolSeconds: Dist{Kind: "exponential", Mean: 2},
				PhaseSwitch: &PhaseSwitch{AtFraction: 0.5, Fanout: Fixed(4)},
				Grading:     &Grading{Probability: 0.5, Judge: "judge", Behaviour: "grader"},
			},
			"single": {Grading: &Grading{Probability: 0.3, Judge: "judge"}},
			"grader": {OutputTokens: Fixed(100)},
		},
		BehaviourMix: map[string]float64{"agentic": 2, "single": 1},
	}
}

func generate(t testing.TB, cfg Config, horizon time.Duration, seed uint64) *Generator {
	t.Helper()
	g, err := NewGenerator(cfg, testCatalogue, horizon, seed)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func drain(t testing.TB, src Source) []Job {
	t.Helper()
	var jobs []Job
	for j, ok := src.Next(); ok; j, ok = src.Next() {
		jobs = append(jobs, j)
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	return jobs
}

// TestTraceRoundTrip: generate → write → read gives the generator's jobs,
// field for field, in both formats.
func TestTraceRoundTrip(t *testing.T) {
	cfg := testConfig()
	const horizon = 2 * time.Hour
	want := drain(t, generate(t, cfg, horizon, 7))
	// The stream must cover what the format carries, or the test proves little.
	var graded, gradedSingle, tiers int
	for _, j := range want {
		if j.Judge >= 0 {
			graded++
			if *j.JudgeBehaviour == SingleCall(400) {
				gradedSingle++
			}
		}
		if j.AccountTier != 0 && j.ProjectTier != 0 && j.BatchTier != 0 {
			tiers++
		}
	}
	if len(want) < 500 || graded == 0 || gradedSingle == 0 || gradedSingle == graded || tiers == 0 {
		t.Fatalf("test stream too plain: %d jobs, %d graded (%d single), %d with every tier", len(want), graded, gradedSingle, tiers)
	}
	for _, format := range TraceFormats {
		t.Run(string(format), func(t *testing.T) {
			g := generate(t, cfg, horizon, 7)
			var buf bytes.Buffer
			n, err := WriteTrace(&buf, format, g, testCatalogue, ClassNames(g.Classes()))
			if err != nil || n != len(want) {
				t.Fatalf("WriteTrace: %d jobs, %v; want %d", n, err, len(want))
			}
			classes, err := BehaviourClasses(cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := drain(t, NewTraceReader(&buf, "jobs."+string(format), format, testCatalogue, classes, TraceOptions{}))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("replayed jobs differ (-want +got):\n%s", diff)
			}
			// Each job's agent loop makes the same calls as the generated one.
			src := rand.NewPCG(0, 0)
			for i := 0; i < len(want); i += 97 {
				if diff := cmp.Diff(agentCalls(want[i].Behaviour, want[i].Seed, src), agentCalls(got[i].Behaviour, got[i].Seed, src)); diff != "" {
					t.Fatalf("job %d's calls differ (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

type callRec struct {
	Turn, In, Out int
	U             float64
	Tool          time.Duration
}

func agentCalls(b *Behaviour, seed uint64, src *rand.PCG) []callRec {
	var a Agent
	var out []callRec
	a.Start(b, seed, src)
	for {
		n, ok := a.NextTurn(src)
		if !ok {
			return out
		}
		for k := 0; k < n; k++ {
			in, o, u := a.NextCall(src)
			out = append(out, callRec{Turn: a.Turn(), In: in, Out: o, U: u})
		}
		out[len(out)-1].Tool = a.EndTurn()
	}
}

// TestTraceRoundTripPlans: explicit plans, seeds and tiers survive a round
// trip in both formats, and a replayed plan job makes exactly its calls.
func TestTraceRoundTripPlans(t *testing.T) {
	classes, err := BehaviourClasses(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	plan := &CallPlan{Turns: []PlanTurn{
		{Calls: []PlanCall{{1200, 300}, {1200, 280}}, Tool: 2500 * time.Millisecond},
		{Calls: []PlanCall{{2100, 450}}},
		{Calls: []PlanCall{{0, 0}, {5, 7}, {9, 1}}, Tool: time.Nanosecond},
	}}
	single := SingleCall(400)
	want := []Job{
		{ID: 0, Arrival: 1500 * time.Millisecond, Account: "a,1", Project: "a\"1/p", Batch: "b é", AccountTier: 3, BatchTier: 100,
			Model: 2, Behaviour: PlanBehaviour(plan), Seed: 1<<64 - 1, Judge: 5, JudgeBehaviour: &single},
		{ID: 1, Arrival: 1500 * time.Millisecond, Account: "a", Project: "p", Batch: "b", ProjectTier: 1,
			Model: 0, Behaviour: classes["agentic"], Seed: 3, Judge: 5, JudgeBehaviour: classes["grader"]},
		{ID: 2, Arrival: 36*time.Hour + 1, Account: "a", Project: "p", Batch: "b",
			Model: 1, Behaviour: PlanBehaviour(&CallPlan{Turns: []PlanTurn{{Calls: []PlanCall{{1, 2}}}}}), Seed: 0, Judge: -1},
	}
	for _, format := range TraceFormats {
		t.Run(string(format), func(t *testing.T) {
			var buf bytes.Buffer
			if _, err := WriteTrace(&buf, format, &sliceSource{jobs: want}, testCatalogue, ClassNames(classes)); err != nil {
				t.Fatal(err)
			}
			got := drain(t, NewTraceReader(bytes.NewReader(buf.Bytes()), "x", format, testCatalogue, classes, TraceOptions{}))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s\ntrace:\n%s", diff, buf.String())
			}
		})
	}
}

// TestAgentFollowsPlan: turns, fan-out, tokens and tool time are the plan's;
// u comes from the (seed, turn) stream, computed here without the Agent.
func TestAgentFollowsPlan(t *testing.T) {
	plan, err := ParseCompactPlan("100:10+200:20/1.5;300:30;1:2+3:4+5:6/0.25")
	if err != nil {
		t.Fatal(err)
	}
	const seed = 99
	u := func(turn uint64, k int) float64 {
		s := rand.NewPCG(seed, turn)
		var v uint64
		for i := 0; i <= k; i++ {
			v = s.Uint64()
		}
		return float64(v<<11>>11) / (1 << 53) // the low 53 bits, as unit does
	}
	want := []callRec{
		{1, 100, 10, u(1, 0), 0}, {1, 200, 20, u(1, 1), 1500 * time.Millisecond},
		{2, 300, 30, u(2, 0), 0},
		{3, 1, 2, u(3, 0), 0}, {3, 3, 4, u(3, 1), 0}, {3, 5, 6, u(3, 2), 250 * time.Millisecond},
	}
	got := agentCalls(PlanBehaviour(plan), seed, rand.NewPCG(1, 2))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	var a Agent
	src := rand.NewPCG(0, 0)
	b := PlanBehaviour(plan)
	if allocs := testing.AllocsPerRun(100, func() {
		a.Start(b, seed, src)
		for n, ok := a.NextTurn(src); ok; n, ok = a.NextTurn(src) {
			for k := 0; k < n; k++ {
				a.NextCall(src)
			}
			a.EndTurn()
		}
	}); allocs != 0 {
		t.Errorf("the agent loop allocates: %v per job", allocs)
	}
}

type sliceSource struct {
	jobs []Job
	i    int
}

func (s *sliceSource) Next() (Job, bool) {
	if s.i >= len(s.jobs) {
		return Job{}, false
	}
	s.i++
	return s.jobs[s.i-1], true
}
func (s *sliceSource) Err() error { return nil }

func TestCompactPlan(t *testing.T) {
	cases := []struct {
		in      string
		want    *CallPlan
		wantErr string
	}{
		{"1:2", &CallPlan{Turns: []PlanTurn{{Calls: []PlanCall{{1, 2}}}}}, ""},
		{"1:2+3:4/0.5;5:6/3", &CallPlan{Turns: []PlanTurn{{Calls: []PlanCall{{1, 2}, {3, 4}}, Tool: 500 * time.Millisecond}, {Calls: []PlanCall{{5, 6}}, Tool: 3 * time.Second}}}, ""},
		{"1:2/1e-3", &CallPlan{Turns: []PlanTurn{{Calls: []PlanCall{{1, 2}}, Tool: time.Millisecond}}}, ""},
		{"", nil, "empty plan"},
		{"1:2;;3:4", nil, "turn 2: no calls"},
		{"1-2", nil, "turn 1 call 1: want IN:OUT"},
		{"1:x", nil, "turn 1 call 1: output tokens: want an integer"},
		{"1:2/abc", nil, "turn 1: tool seconds"},
		{"1:99999999999", nil, "above"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseCompactPlan(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			// and back: the encoding round-trips
			again, err := ParseCompactPlan(got.String())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Fatalf("re-encoded %q differs (-want +got):\n%s", got.String(), diff)
			}
		})
	}
}

// TestSecondsExact: arrival times convert to and from decimal seconds exactly.
func TestSecondsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 20000; i++ {
		d := time.Duration(r.Int64N(int64(400 * 24 * time.Hour)))
		if i%3 == 0 {
			d = d.Truncate(time.Millisecond)
		}
		s := formatSeconds(d)
		got, err := parseSeconds(s)
		if err != nil || got != d {
			t.Fatalf("%v -> %q -> %v, %v", d, s, got, err)
		}
	}
	for _, tc := range []struct {
		s    string
		want time.Duration
	}{{"0", 0}, {"1.5", 1500 * time.Millisecond}, {"2e3", 2000 * time.Second}, {"0.0000000004", 0}, {"12.000000001", 12*time.Second + 1}} {
		if got, err := parseSeconds(tc.s); err != nil || got != tc.want {
			t.Errorf("parseSeconds(%q) = %v, %v; want %v", tc.s, got, err, tc.want)
		}
	}
	// The extremes print as numbers (the magnitude of MinInt64 is no int64).
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{math.MinInt64, "-9223372036.854775808"}, {math.MaxInt64, "9223372036.854775807"}, {-1500 * time.Millisecond, "-1.5"}} {
		if got := formatSeconds(tc.d); got != tc.want {
			t.Errorf("formatSeconds(%d) = %q, want %q", int64(tc.d), got, tc.want)
		}
	}
}

const validLine = `{"v":1,"id":"ID","arrival_s":AT,"account":"a","project":"a/p","batch":"b","model":"m-a","class":"agentic","seed":1}`

func jline(id, at string) string {
	return strings.NewReplacer("ID", id, "AT", at).Replace(validLine)
}

// TestTraceErrors: every kind of bad record is reported with its line and
// field, by ValidateTrace (all of them) and by a reader (the first).
func TestTraceErrors(t *testing.T) { // long: one table row per kind of bad record
	classes, err := BehaviourClasses(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	good := []string{jline("j1", "1"), jline("j2", "2")}
	cases := []struct {
		name      string
		format    JobFormat
		text      string // the whole file
		line      int
		field     string
		msg       string
		wantValid int
	}{
		// JSON Lines: two good records, then the bad one on line 3, then a good one.
		{"out of order", "jsonl", lines(good, jline("j3", "1.5"), jline("j4", "3")), 3, "arrival_s", "out of order: 1.5 s is before the previous job's 2 s", 3},
		{"unknown model", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"m-a"`, `"gpt-9"`, 1), jline("j4", "3")), 3, "model", `unknown model "gpt-9"`, 3},
		{"unknown grading model", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"seed"`, `"grading":"gpt-9","seed"`, 1)), 3, "grading", `unknown model "gpt-9"`, 2},
		{"negative input tokens", "jsonl", lines(good, `{"v":1,"id":"j3","arrival_s":3,"account":"a","project":"p","batch":"b","model":"m-a","plan":[{"calls":[[10,5],[-4,5]]}]}`), 3, "plan", "turn 1 call 2: negative tokens (-4 in, 5 out)", 2},
		{"negative output tokens compact", "jsonl", lines(good, `{"v":1,"id":"j3","arrival_s":3,"account":"a","project":"p","batch":"b","model":"m-a","plan":"1:1;2:-2"}`), 3, "plan", "turn 2 call 1: negative tokens", 2},
		{"negative tool seconds", "jsonl", lines(good, `{"v":1,"id":"j3","arrival_s":3,"account":"a","project":"p","batch":"b","model":"m-a","plan":[{"calls":[[1,1]],"tool_s":-2}]}`), 3, "plan", "turn 1: negative tool seconds -2", 2},
		{"duplicate id", "jsonl", lines(good, jline("j1", "3"), jline("j4", "3")), 3, "id", `duplicate id "j1" (first at line 1)`, 3},
		{"truncated last line", "jsonl", strings.Join(good, "\n") + "\n" + `{"v":1,"id":"j3","arrival_s":3,"acc`, 3, "record", "truncated last line", 2},
		{"invalid json", "jsonl", lines(good, `{"v":1,"id":"j3",}`, jline("j4", "3")), 3, "record", "invalid JSON", 3},
		{"not an object", "jsonl", lines(good, `[1,2]`), 3, "record", "want a JSON object, got an array", 2},
		{"string for number", "jsonl", lines(good, jline("j3", `"3"`)), 3, "arrival_s", "want a number, got a string", 2},
		{"number for string", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"m-a"`, `7`, 1)), 3, "model", "want a string, got a number", 2},
		{"fraction for seed", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"seed":1`, `"seed":1.5`, 1)), 3, "seed", `want an integer in [0, 18446744073709551615], got "1.5"`, 2},
		{"seed string", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"seed":1`, `"seed":"1"`, 1)), 3, "seed", "want a number, got a string", 2},
		{"tier out of range", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"seed"`, `"batch_tier":101,"seed"`, 1)), 3, "batch_tier", "want an integer in [0, 100]", 2},
		{"unknown field", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"seed"`, `"colour":"red","seed"`, 1)), 3, "colour", "unknown field", 2},
		{"repeated field", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"seed"`, `"model":"m-b","seed"`, 1)), 3, "model", "repeated field", 2},
		{"missing field", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"account":"a",`, ``, 1)), 3, "account", "missing", 2},
		{"null required field", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"batch":"b"`, `"batch":null`, 1)), 3, "batch", "missing", 2},
		{"empty id", "jsonl", lines(good, jline("", "3")), 3, "id", "empty", 2},
		{"missing version", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"v":1,`, ``, 1)), 3, "v", "missing", 2},
		{"future version", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"v":1,`, `"v":2,`, 1)), 3, "v", "unsupported version 2", 2},
		{"unknown behaviour", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"agentic"`, `"chatty"`, 1)), 3, "class", `unknown behaviour class "chatty"`, 2},
		{"neither class nor plan", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"class":"agentic",`, ``, 1)), 3, "class", "missing: a job needs a class or a plan", 2},
		{"both class and plan", "jsonl", lines(good, strings.Replace(jline("j3", "3"), `"seed"`, `"plan":"1:1","seed"`, 1)), 3, "plan", "not both", 2},
		{"plan turn without calls", "jsonl", lines(good, `{"v":1,"id":"j3","arrival_s":3,"account":"a","project":"p","batch":"b","model":"m-a","plan":[{"tool_s":1}]}`), 3, "plan", "turn 1: calls: missing", 2},
		{"plan call shape", "jsonl", lines(good, `{"v":1,"id":"j3","arrival_s":3,"account":"a","project":"p","batch":"b","model":"m-a","plan":[{"calls":[[1,2,3]]}]}`), 3, "plan", "turn 1 call 1: want [IN, OUT]", 2},
		{"blank lines counted", "jsonl", good[0] + "\n\n" + jline("j2", "0.5") + "\n", 3, "arrival_s", "out of order", 1},
		// CSV: header on line 1, two good rows, the bad one on line 4.
		{"csv out of order", "csv", csvText("j3,1.5,m-a,agentic,1,"), 4, "arrival_s", "out of order", 2},
		{"csv unknown model", "csv", csvText("j3,3,gpt-9,agentic,1,"), 4, "model", `unknown model "gpt-9"`, 2},
		{"csv negative tokens", "csv", csvText("j3,3,m-a,,1,10:-5"), 4, "plan", "turn 1 call 1: negative tokens", 2},
		{"csv negative tool seconds json plan", "csv", csvText(`j3,3,m-a,,1,"[{""calls"":[[1,1]],""tool_s"":-1}]"`), 4, "plan", "negative tool seconds", 2},
		{"csv duplicate id", "csv", csvText("j2,3,m-a,agentic,1,"), 4, "id", `duplicate id "j2" (first at line 3)`, 2},
		{"csv wrong type", "csv", csvText("j3,soon,m-a,agentic,1,"), 4, "arrival_s", `want a number of seconds, got "soon"`, 2},
		{"csv unknown behaviour", "csv", csvText("j3,3,m-a,chatty,1,"), 4, "class", "unknown behaviour class", 2},
		{"csv missing field", "csv", csvText("j3,3,,agentic,1,"), 4, "model", "missing", 2},
		{"csv too few fields", "csv", csvText("j3,3,m-a") + csvRow("j4,4,m-a,agentic,1,"), 4, "record", "too few fields: 8, the header has 11", 3},
		{"csv truncated last line", "csv", strings.TrimSuffix(csvText("j3,3,m-a"), "\n"), 4, "record", "truncated last line: 8 of 11 fields", 2},
		{"csv too many fields", "csv", csvText("j3,3,m-a,agentic,1,,extra"), 4, "record", "too many fields", 2},
		{"csv bad quote", "csv", csvText(`j3,3,m-a,agentic,1,"1:1`) + csvRow("j4,4,m-a,agentic,1,"), 4, "record", "quote", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := "jobs." + string(tc.format)
			rep, err := ValidateTrace(strings.NewReader(tc.text), name, "", testCatalogue, classes)
			if err != nil {
				t.Fatalf("fatal error: %v", err)
			}
			if len(rep.Errors) != 1 {
				t.Fatalf("want 1 error, got %d: %v", len(rep.Errors), rep.Errors)
			}
			e := rep.Errors[0]
			type where struct {
				File, Field string
				Line, Valid int
			}
			if diff := cmp.Diff(where{name, tc.field, tc.line, tc.wantValid}, where{e.File, e.Path, e.Line, rep.Valid}); diff != "" {
				t.Errorf("%v (-want +got):\n%s", e, diff)
			}
			if !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("message %q lacks %q", e.Msg, tc.msg)
			}
			// A strict reader stops at the same error, after the good jobs before it.
			r := NewTraceReader(strings.NewReader(tc.text), name, "", testCatalogue, classes, TraceOptions{UniqueIDs: true})
			n := 0
			for _, ok := r.Next(); ok; _, ok = r.Next() {
				n++
			}
			if r.Err() == nil || r.Err().Error() != e.Error() {
				t.Errorf("reader error %v, want %v", r.Err(), e)
			}
			// A skipping reader yields the good ones and lists the bad one.
			r = NewTraceReader(strings.NewReader(tc.text), name, "", testCatalogue, classes, TraceOptions{UniqueIDs: true, SkipInvalid: true})
			jobs := drain(t, r)
			if len(jobs) != tc.wantValid || r.SkippedCount() != 1 {
				t.Errorf("skipping reader: %d jobs, %d skipped; want %d and 1", len(jobs), r.SkippedCount(), tc.wantValid)
			}
			if diff := cmp.Diff(rep.Errors, r.Skipped()); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
}

func lines(first []string, more ...string) string {
	return strings.Join(append(append([]string{}, first...), more...), "\n") + "\n"
}

// csvText is a CSV trace: the header, two good rows, then row (line 4).
func csvText(row string) string {
	return "v,id,account,project,batch,account_tier,arrival_s,model,class,seed,plan\n" +
		csvRow("j1,1,m-a,agentic,1,") + csvRow("j2,2,m-a,agentic,1,") + csvRow(row)
}

// csvRow puts the constant columns in front of id,arrival_s,model,class,seed,plan.
func csvRow(row string) string {
	id, rest, _ := strings.Cut(row, ",")
	at, rest, _ := strings.Cut(rest, ",")
	return "1," + id + ",acct,acct/p,b1,2," + at + "," + rest + "\n"
}

// TestTraceHeaderErrors: a bad CSV header or format stops everything.
func TestTraceHeaderErrors(t *testing.T) {
	classes, _ := BehaviourClasses(testConfig())
	cases := []struct {
		name, file string
		format     JobFormat
		text, want string
	}{
		{"unknown column", "x.csv", "", "v,id,arrival_s,account,project,batch,model,class,colour\n", "x.csv:1: colour: unknown column"},
		{"repeated column", "x.csv", "", "v,id,id,arrival_s,account,project,batch,model,class\n", "x.csv:1: id: repeated column"},
		{"missing column", "x.csv", "", "v,id,account,project,batch,model,class\n", "x.csv:1: arrival_s: missing column"},
		{"no class or plan", "x.csv", "", "v,id,arrival_s,account,project,batch,model\n", "x.csv:1: class: missing column"},
		{"empty csv", "x.csv", "", "", "x.csv:1: header: empty file"},
		{"unknown format", "x.txt", "", "", "cannot infer the trace format"},
		{"bad format", "x.csv", "xml", "", `unknown trace format "xml"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ValidateTrace(strings.NewReader(tc.text), tc.file, tc.format, testCatalogue, classes)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestTraceFormatDocumented: the fields the documentation lists are the
// fields the reader knows, and a written trace parses with the standard
// library's CSV and JSON readers.
func TestTraceFormatDocumented(t *testing.T) {
	classes, _ := BehaviourClasses(testConfig())
	g := generate(t, testConfig(), 20*time.Minute, 3)
	var js, cs bytes.Buffer
	if _, err := WriteTrace(&js, "jsonl", g, testCatalogue, ClassNames(g.Classes())); err != nil {
		t.Fatal(err)
	}
	g = generate(t, testConfig(), 20*time.Minute, 3)
	if _, err := WriteTrace(&cs, "csv", g, testCatalogue, ClassNames(g.Classes())); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(cs.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fieldNames[:], rows[0]); diff != "" {
		t.Errorf("CSV header (-want +got):\n%s", diff)
	}
	dec := json.NewDecoder(bytes.NewReader(js.Bytes()))
	n := 0
	for dec.More() {
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		if rec["v"] != 1.0 || rec["id"] != rows[n+1][1] {
			t.Fatalf("record %d: %v vs CSV %v", n, rec, rows[n+1])
		}
		n++
	}
	if n != len(rows)-1 || n == 0 {
		t.Fatalf("%d JSON records, %d CSV rows", n, len(rows)-1)
	}
	_ = classes
}

// TestTraceWriterRefuses: the writer refuses what a reader would reject.
func TestTraceWriterRefuses(t *testing.T) {
	classes, _ := BehaviourClasses(testConfig())
	other := SingleCall(50)
	ok := Job{Account: "a", Project: "p", Batch: "b", Behaviour: classes["agentic"], Judge: -1}
	cases := []struct {
		name string
		jobs []Job
		want string
	}{
		{"out of order", []Job{{Arrival: 2, Account: "a", Project: "p", Batch: "b", Behaviour: classes["agentic"], Judge: -1}, ok}, "out of order"},
		{"unnamed class", []Job{{Account: "a", Project: "p", Batch: "b", Behaviour: &other, Judge: -1}}, "not one of the named classes"},
		{"model index", []Job{{Account: "a", Project: "p", Batch: "b", Model: 99, Behaviour: classes["agentic"], Judge: -1}}, "outside the catalogue"},
		{"judge behaviour", []Job{{Account: "a", Project: "p", Batch: "b", Behaviour: classes["agentic"], Judge: 5, JudgeBehaviour: &other}}, "grading class \"grader\""},
		{"empty account", []Job{{Project: "p", Batch: "b", Behaviour: classes["agentic"], Judge: -1}}, "account: empty"},
		{"bad plan", []Job{{Account: "a", Project: "p", Batch: "b", Behaviour: PlanBehaviour(&CallPlan{}), Judge: -1}}, "no turns"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := WriteTrace(&buf, "jsonl", &sliceSource{jobs: tc.jobs}, testCatalogue, ClassNames(classes))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestTraceFormatExamples: the examples in docs/reference/traces.md read as the
// jobs they describe, and the two formats agree.
func TestTraceFormatExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/reference/traces.md")
	if err != nil {
		t.Fatal(err)
	}
	block := func(lang string) string {
		_, rest, ok := strings.Cut(string(doc), "```"+lang+"\n")
		body, _, ok2 := strings.Cut(rest, "```")
		if !ok || !ok2 {
			t.Fatalf("no %s example", lang)
		}
		return body
	}
	catalogue := []string{"gpt-5.5", "judge-1"}
	classes, err := BehaviourClasses(Config{Behaviours: map[string]Behaviour{"agentic": {Turns: Fixed(2)}}})
	if err != nil {
		t.Fatal(err)
	}
	single := SingleCall(400)
	want := []Job{
		{ID: 0, Arrival: 500 * time.Millisecond, Account: "acct-001", Project: "acct-001/p01", Batch: "b1", AccountTier: 2,
			Model: 0, Behaviour: classes["agentic"], Seed: 42, Judge: 1, JudgeBehaviour: &single},
		{ID: 1, Arrival: time.Second, Account: "acct-001", Project: "acct-001/p01", Batch: "b1", Model: 0, Seed: 7, Judge: -1,
			Behaviour: PlanBehaviour(&CallPlan{Turns: []PlanTurn{{Calls: []PlanCall{{1200, 300}, {1200, 280}}, Tool: 2500 * time.Millisecond}, {Calls: []PlanCall{{2100, 450}}}}})},
	}
	for _, format := range TraceFormats {
		t.Run(string(format), func(t *testing.T) {
			lang := map[string]string{"jsonl": "json", "csv": "csv"}[string(format)]
			got := drain(t, NewTraceReader(strings.NewReader(block(lang)), "docs/reference/traces.md", format, catalogue, classes, TraceOptions{UniqueIDs: true}))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestTraceErrorIsFieldError: a bad record's error, however wrapped, reads
// back with errors.As as the lab's *field.Error with its file, line and
// field path.
func TestTraceErrorIsFieldError(t *testing.T) {
	classes, err := BehaviourClasses(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	good := []string{jline("j1", "1"), jline("j2", "2")}
	for _, tc := range []struct {
		name, file, text string
		want             field.Error
	}{
		{"jsonl field", "jobs.jsonl", lines(good, strings.Replace(jline("j3", "3"), `"m-a"`, `"gpt-9"`, 1)),
			field.Error{File: "jobs.jsonl", Line: 3, Path: "model", Msg: `unknown model "gpt-9"`}},
		{"jsonl record", "jobs.jsonl", lines(good, `[1,2]`),
			field.Error{File: "jobs.jsonl", Line: 3, Path: "record", Msg: "want a JSON object, got an array"}},
		{"jsonl plan", "jobs.jsonl", lines(good, `{"v":1,"id":"j3","arrival_s":3,"account":"a","project":"p","batch":"b","model":"m-a","plan":"1:1;2:-2"}`),
			field.Error{File: "jobs.jsonl", Line: 3, Path: "plan", Msg: "turn 2 call 1: negative tokens (2 in, -2 out)"}},
		{"csv field", "jobs.csv", csvText("j3,1.5,m-a,agentic,1,"),
			field.Error{File: "jobs.csv", Line: 4, Path: "arrival_s", Msg: "out of order: 1.5 s is before the previous job's 2 s"}},
		{"csv header", "jobs.csv", "v,id,arrival_s,account,project,batch,model,class,colour\n",
			field.Error{File: "jobs.csv", Line: 1, Path: "colour", Msg: "unknown column (known: " + strings.Join(fieldNames[:], ", ") + ")"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewTraceReader(strings.NewReader(tc.text), tc.file, "", testCatalogue, classes, TraceOptions{})
			drainErr(r)
			var fe *field.Error
			if !errors.As(fmt.Errorf("replaying: %w", r.Err()), &fe) {
				t.Fatalf("error %v (%T) is not a *field.Error", r.Err(), r.Err())
			}
			if diff := cmp.Diff(tc.want, *fe); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// drainErr reads a source to its end, ignoring the jobs.
func drainErr(src Source) {
	for _, ok := src.Next(); ok; _, ok = src.Next() {
	}
}

// TestTraceOrderOutliers: a record out of order is reported alone, whether
// it goes back or jumps ahead, and the records after it are judged without
// it; the expected bad lines are computed by a brute force that tries every
// way of dropping records (fewest first) until the rest are in order.
func TestTraceOrderOutliers(t *testing.T) {
	classes, err := BehaviourClasses(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		arrivals []float64
	}{
		{"jump ahead", []float64{1, 2, 3, 1e6, 4, 5, 6, 7, 8, 9, 10}},
		{"go back", []float64{1, 2, 3, 0.5, 4, 5, 6, 7}},
		{"jump ahead at the start", []float64{1e6, 1, 2, 3, 4}},
		{"two jumps apart", []float64{1, 1e6, 2, 3, 4, 5e5, 5, 6}},
		{"back then ahead", []float64{1, 2, 0.5, 3, 1e6, 4, 5}},
		{"in order", []float64{1, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var text strings.Builder
			for i, a := range tc.arrivals {
				text.WriteString(jline(fmt.Sprint(i), fmt.Sprint(a)) + "\n")
			}
			rep, err := ValidateTrace(strings.NewReader(text.String()), "jobs.jsonl", "", testCatalogue, classes)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, e := range rep.Errors {
				if e.Path != "arrival_s" {
					t.Errorf("unexpected error %v", e)
				}
				got = append(got, e.Line)
			}
			slices.Sort(got)
			if diff := cmp.Diff(fewestOutOfOrder(tc.arrivals), got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("bad lines (-want +got):\n%s", diff)
			}
			if rep.Valid != len(tc.arrivals)-len(got) {
				t.Errorf("%d valid records, want %d", rep.Valid, len(tc.arrivals)-len(got))
			}
		})
	}
}

// fewestOutOfOrder is the smallest set of lines (1-based) whose removal
// leaves the arrivals non-decreasing, by brute force over subsets.
func fewestOutOfOrder(a []float64) []int {
	n := len(a)
	best := -1
	var bestSet []int
	for mask := 0; mask < 1<<n; mask++ {
		k := bits.OnesCount(uint(mask))
		if best >= 0 && k >= best {
			continue
		}
		last, ok := math.Inf(-1), true
		for i := 0; i < n && ok; i++ {
			if mask&(1<<i) != 0 {
				continue
			}
			ok = a[i] >= last
			last = a[i]
		}
		if ok {
			best, bestSet = k, nil
			for i := 0; i < n; i++ {
				if mask&(1<<i) != 0 {
					bestSet = append(bestSet, i+1)
				}
			}
		}
	}
	return bestSet
}
