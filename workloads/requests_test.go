package workloads

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// The whole public traces sit in ../shared/traces beside the repository when
// it is there (../../shared/traces from this package); the repository ships
// samples of them in testdata/traces and the whole conversation trace built
// in (traces/).
var tracesDir = filepath.Join("..", "..", "shared", "traces")

// sharedTrace returns the path of a whole trace in ../shared/traces, or
// skips the test when the folder is not beside the repository.
func sharedTrace(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(tracesDir, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no %s beside the repository (../shared/traces); the samples in testdata/traces are tested instead", name)
	}
	return p
}

// Shipped traces: the samples in testdata/traces and the built-in trace.
const (
	codeSample     = "testdata/traces/AzureLLMInferenceTrace_code.sample.csv"
	mooncakeSample = "testdata/traces/mooncake_conversation_trace.sample.jsonl"
	convEmbedded   = EmbeddedTracePrefix + "AzureLLMInferenceTrace_conv.csv.gz"
)

// traceBytes reads a trace's text for the reference parsers: a built-in one
// from its file in traces/, decompressed with gzip when its name ends .gz.
func traceBytes(t *testing.T, path string) []byte {
	t.Helper()
	if name, ok := strings.CutPrefix(path, EmbeddedTracePrefix); ok {
		path = filepath.Join("traces", name)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

// refCalls parses a shipped trace without the importer's machinery: Azure by
// splitting lines and commas and reading the clock by hand, Mooncake with a
// generic JSON decoder.
type refTrace struct {
	rows          int
	in, out       []int
	span          time.Duration // last arrival minus first
	sumIn, sumOut int64
}

func refAzure(t *testing.T, path string) refTrace {
	data := traceBytes(t, path)
	lines := strings.Split(strings.TrimRight(string(data), "\r\n"), "\n")
	if strings.TrimSpace(lines[0]) != "TIMESTAMP,ContextTokens,GeneratedTokens" {
		t.Fatalf("unexpected header %q", lines[0])
	}
	var r refTrace
	var first, last time.Duration
	for i, l := range lines[1:] {
		parts := strings.Split(strings.TrimSpace(l), ",")
		// "2023-11-16 18:17:03.9799600": hours, minutes, seconds and 7 fraction digits.
		clock := strings.Split(parts[0], " ")[1]
		hms := strings.Split(clock, ":")
		h, _ := strconv.Atoi(hms[0])
		m, _ := strconv.Atoi(hms[1])
		secFrac := strings.Split(hms[2], ".")
		s, _ := strconv.Atoi(secFrac[0])
		frac, _ := strconv.Atoi((secFrac[1] + "000000000")[:9])
		at := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second + time.Duration(frac)
		if i == 0 {
			first = at
		}
		last = at
		in, err1 := strconv.Atoi(parts[1])
		out, err2 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil {
			t.Fatalf("line %d: %q", i+2, l)
		}
		r.in, r.out = append(r.in, in), append(r.out, out)
		r.sumIn += int64(in)
		r.sumOut += int64(out)
		r.rows++
	}
	r.span = last - first
	return r
}

func refMooncake(t *testing.T, path string) refTrace {
	dec := json.NewDecoder(bytes.NewReader(traceBytes(t, path)))
	var r refTrace
	var first, last float64
	for {
		var rec map[string]any
		if err := dec.Decode(&rec); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		ts, in, out := rec["timestamp"].(float64), int(rec["input_length"].(float64)), int(rec["output_length"].(float64))
		if r.rows == 0 {
			first = ts
		}
		last = ts
		r.in, r.out = append(r.in, in), append(r.out, out)
		r.sumIn += int64(in)
		r.sumOut += int64(out)
		r.rows++
	}
	r.span = time.Duration((last - first) * float64(time.Millisecond))
	return r
}

// TestRequestTraceShipped: the importers read every shipped row, with the
// token totals and the time span computed independently.
func TestRequestTraceShipped(t *testing.T) {
	cases := []struct {
		file   string
		format RequestFormat
		shared bool // a whole trace in ../shared/traces
		rows   int  // as the traces' READMEs state
		ref    func(*testing.T, string) refTrace
	}{
		{codeSample, "azure", false, 2000, refAzure},
		{convEmbedded, "", false, 19366, refAzure},
		{mooncakeSample, "", false, 1000, refMooncake},
		{"AzureLLMInferenceTrace_code.csv", "azure", true, 8819, refAzure},
		{"AzureLLMInferenceTrace_conv.csv", "", true, 19366, refAzure},
		{"mooncake_conversation_trace.jsonl", "mooncake", true, 12031, refMooncake},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			path := tc.file
			if tc.shared {
				path = sharedTrace(t, tc.file)
			}
			want := tc.ref(t, path)
			src, closer, err := OpenRequestTrace(path, tc.format, ReplayOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer closer.Close()
			var got refTrace
			var prev time.Duration
			for c, ok := src.Next(); ok; c, ok = src.Next() {
				if got.rows == 0 && c.Arrival != 0 {
					t.Fatalf("first arrival %v, want 0 (relative to the first record)", c.Arrival)
				}
				if c.Arrival < prev {
					t.Fatalf("row %d: arrival %v before %v", got.rows+1, c.Arrival, prev)
				}
				prev = c.Arrival
				got.rows++
				got.sumIn += int64(c.In)
				got.sumOut += int64(c.Out)
			}
			if err := src.Err(); err != nil {
				t.Fatal(err)
			}
			got.span = prev
			type sums struct {
				Rows          int
				SumIn, SumOut int64
				Span          time.Duration
			}
			if diff := cmp.Diff(sums{tc.rows, want.sumIn, want.sumOut, want.span}, sums{got.rows, got.sumIn, got.sumOut, got.span}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if want.rows != tc.rows {
				t.Errorf("reference parse found %d rows, the README says %d", want.rows, tc.rows)
			}
		})
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReplayOptions: speed-up, offset, horizon and loop, on a three-record
// trace (0 s, 1 s, 3 s) in both formats.
func TestReplayOptions(t *testing.T) {
	azure := writeFile(t, "t.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"+
		"2024-01-01 23:59:59.5000000,10,1\r\n2024-01-02 00:00:00.5,20,2\r\n2024-01-02 00:00:02.5000000,30,3")
	mooncake := writeFile(t, "t.jsonl", `{"timestamp": 500, "input_length": 10, "output_length": 1, "hash_ids": [1, 2]}
{"timestamp": 1500, "input_length": 20, "output_length": 2}

{"timestamp": 3500, "input_length": 30, "output_length": 3, "hash_ids": []}
`)
	s := func(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
	cases := []struct {
		name string
		opt  ReplayOptions
		want []time.Duration
	}{
		{"real time", ReplayOptions{}, []time.Duration{0, s(1), s(3)}},
		{"speedup 1", ReplayOptions{Speedup: 1}, []time.Duration{0, s(1), s(3)}},
		{"speedup 2", ReplayOptions{Speedup: 2}, []time.Duration{0, s(0.5), s(1.5)}},
		{"slowdown", ReplayOptions{Speedup: 0.5}, []time.Duration{0, s(2), s(6)}},
		{"offset", ReplayOptions{Offset: s(10)}, []time.Duration{s(10), s(11), s(13)}},
		{"horizon", ReplayOptions{Horizon: s(3)}, []time.Duration{0, s(1)}},
		{"slowed past any run", ReplayOptions{Speedup: 1e-300, Horizon: s(3600)}, []time.Duration{0}},
		{"slowed past any run, no horizon", ReplayOptions{Speedup: 1e-300}, []time.Duration{0}},
		{"loop", ReplayOptions{Loop: true, Horizon: s(10)}, []time.Duration{0, s(1), s(3), s(3), s(4), s(6), s(6), s(7), s(9), s(9)}},
		{"loop speedup offset", ReplayOptions{Loop: true, Speedup: 2, Offset: s(1), Horizon: s(5)},
			[]time.Duration{s(1), s(1.5), s(2.5), s(2.5), s(3), s(4), s(4), s(4.5)}},
	}
	for _, file := range []string{azure, mooncake} {
		for _, tc := range cases {
			t.Run(filepath.Ext(file)+"/"+tc.name, func(t *testing.T) {
				src, closer, err := OpenRequestTrace(file, "", tc.opt)
				if err != nil {
					t.Fatal(err)
				}
				defer closer.Close()
				var got []time.Duration
				var toks []int
				for c, ok := src.Next(); ok; c, ok = src.Next() {
					got = append(got, c.Arrival)
					toks = append(toks, c.In+c.Out)
				}
				if err := src.Err(); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("arrivals (-want +got):\n%s", diff)
				}
				for i, tok := range toks {
					if want := 11 * (i%3 + 1); tok != want {
						t.Errorf("call %d: tokens %d, want %d", i, tok, want)
					}
				}
			})
		}
	}
}

// TestRequestTraceErrors: bad rows are reported with file, line and field.
func TestRequestTraceErrors(t *testing.T) {
	cases := []struct {
		name, file, text string
		opt              ReplayOptions
		want             string // after the file name
	}{
		{"azure bad time", "a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-01-01 00:00:00.1,1,1\nyesterday,1,1\n", ReplayOptions{}, ":3: TIMESTAMP: want a time"},
		{"azure negative tokens", "a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-01-01 00:00:00.1,-1,1\n", ReplayOptions{}, ":2: ContextTokens: want a token count"},
		{"azure out of order", "a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-01-01 00:00:01,1,1\n2024-01-01 00:00:00,1,1", ReplayOptions{}, ":3: TIMESTAMP: out of order"},
		{"azure missing column", "a.csv", "TIMESTAMP,ContextTokens\n", ReplayOptions{}, ":1: GeneratedTokens: missing column"},
		{"azure short row", "a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-01-01 00:00:00.1,1", ReplayOptions{}, ":2: GeneratedTokens: missing"},
		{"mooncake wrong type", "m.jsonl", `{"timestamp": 0, "input_length": 1, "output_length": 1}` + "\n" + `{"timestamp": 1, "input_length": "many", "output_length": 1}` + "\n", ReplayOptions{}, ":2: input_length: want a number, got JSON string"},
		{"mooncake missing field", "m.jsonl", `{"timestamp": 0, "input_length": 1}` + "\n", ReplayOptions{}, ":1: output_length: missing"},
		{"mooncake truncated", "m.jsonl", `{"timestamp": 0, "input_length": 1, "output_length": 1}` + "\n" + `{"timestamp": 5, "inpu`, ReplayOptions{}, ":2: record: truncated last line"},
		{"mooncake out of order", "m.jsonl", `{"timestamp": 9, "input_length": 1, "output_length": 1}` + "\n" + `{"timestamp": 5, "input_length": 1, "output_length": 1}`, ReplayOptions{}, ":2: timestamp: out of order"},
		{"mooncake far before the first record", "m.jsonl", `{"timestamp": 1e300, "input_length": 1, "output_length": 1}` + "\n" + `{"timestamp": 0, "input_length": 1, "output_length": 1}`, ReplayOptions{}, ":2: timestamp: out of order: 0 ms is before the first record's 1e+300 ms"},
		{"mooncake past a year", "m.jsonl", `{"timestamp": 0, "input_length": 1, "output_length": 1}` + "\n" + `{"timestamp": 9.2e18, "input_length": 1, "output_length": 1}`, ReplayOptions{}, ":2: timestamp: 9.2e+18 ms is more than 8760h0m0s after the first record"},
		{"azure past a year", "a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03,1,1\n2125-01-01 00:00:00,1,1\n", ReplayOptions{}, ":3: TIMESTAMP: 2125-01-01 00:00:00 is more than 8760h0m0s after the first record"},
		{"azure header only", "a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n", ReplayOptions{}, ":2: record: no request: the file ends after its header"},
		{"azure header only, CRLF, looped", "a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\r\n", ReplayOptions{Loop: true, Horizon: time.Hour}, ":2: record: no request"},
		{"mooncake empty", "m.jsonl", "", ReplayOptions{}, ":1: record: no request: the file holds no record"},
		{"mooncake blank lines", "m.jsonl", "\n\n", ReplayOptions{}, ":3: record: no request"},
		{"loop over no time", "m.jsonl", `{"timestamp": 9, "input_length": 1, "output_length": 1}` + "\n", ReplayOptions{Loop: true, Horizon: time.Hour}, ":1: timestamp: cannot loop: the trace spans no time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.file, tc.text)
			src, closer, err := OpenRequestTrace(path, "", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			defer closer.Close()
			for _, ok := src.Next(); ok; _, ok = src.Next() {
			}
			if err := src.Err(); err == nil || err.Error() != path+tc.want && !strings.HasPrefix(err.Error(), path+tc.want) {
				t.Fatalf("error %v, want %s%s…", err, path, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name, path string
		format     RequestFormat
		opt        ReplayOptions
		want       string
	}{
		{"loop without horizon", "x.csv", "", ReplayOptions{Loop: true}, "loop: needs a horizon"},
		{"negative speedup", "x.csv", "", ReplayOptions{Speedup: -1}, "speedup: must be >= 0"},
		{"unknown format", "x.csv", "parquet", ReplayOptions{}, `unknown request-trace format "parquet"`},
		{"no extension", "x.txt", "", ReplayOptions{}, "cannot infer"},
		{"missing file", filepath.Join(t.TempDir(), "none.csv"), "", ReplayOptions{}, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := OpenRequestTrace(tc.path, tc.format, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestEmpiricalDist: an empirical distribution samples only values of its
// column, and its sample mean converges to the column's mean.
func TestEmpiricalDist(t *testing.T) {
	for _, tc := range []struct {
		file, column string
		ref          func(*testing.T, string) refTrace
	}{
		{codeSample, "input", refAzure},
		{convEmbedded, "output", refAzure},
		{mooncakeSample, "output", refMooncake},
	} {
		t.Run(tc.file+"/"+tc.column, func(t *testing.T) {
			path := tc.file
			ref := tc.ref(t, path)
			col := ref.out
			if tc.column == "input" {
				col = ref.in
			}
			present := map[float64]bool{}
			mean, sq := 0.0, 0.0
			for _, v := range col {
				present[float64(v)] = true
				mean += float64(v)
			}
			mean /= float64(len(col))
			for _, v := range col {
				sq += (float64(v) - mean) * (float64(v) - mean)
			}
			sd := math.Sqrt(sq / float64(len(col)))

			var d Dist
			if err := yaml.Unmarshal([]byte("{dist: empirical, file: "+path+", column: "+tc.column+"}"), &d); err != nil {
				t.Fatal(err)
			}
			if err := d.Validate("x"); err != nil {
				t.Fatal(err)
			}
			if got := d.MeanValue(); math.Abs(got-mean) > 1e-9*mean {
				t.Errorf("MeanValue %g, want %g", got, mean)
			}
			const n = 200000
			src := newTestSource(5)
			sum := 0.0
			for i := 0; i < n; i++ {
				v := d.Sample(src)
				if !present[v] {
					t.Fatalf("sampled %g, not in the column", v)
				}
				sum += v
			}
			// Within 5 standard errors of the column mean.
			if got, tol := sum/n, 5*sd/math.Sqrt(n); math.Abs(got-mean) > tol {
				t.Errorf("sample mean %g, column mean %g (tolerance %g)", got, mean, tol)
			}
		})
	}
}

func TestEmpiricalDistErrors(t *testing.T) {
	azure := codeSample
	bad := writeFile(t, "bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-01-01 00:00:00,x,1\n")
	cases := []struct {
		name, yaml, want string
	}{
		{"unknown key", "{dist: empirical, file: f.csv, colum: input}", "field colum not found"},
		{"bad column", "{dist: empirical, file: " + azure + ", column: both}", `unknown "both" (want input or output)`},
		{"no column", "{dist: empirical, file: " + azure + "}", "x.column: want input or output"},
		{"no file", "{dist: empirical, column: input}", "x.file: missing"},
		{"missing file", "{dist: empirical, file: /nonexistent/t.csv, column: input}", "x.file: open /nonexistent/t.csv"},
		{"bad format", "{dist: empirical, file: " + azure + ", format: parquet, column: input}", `unknown "parquet" (want azure, mooncake or gateway)`},
		{"bad row", "{dist: empirical, file: " + bad + ", column: input}", "x.file: " + bad + ":2: ContextTokens"},
		{"clipping", "{dist: empirical, file: " + azure + ", column: input, max: 10}", "x.min: min and max do not apply"},
		{"other kinds unchanged", "{dist: lognormal, median: 0, sigma: 1}", "x.median: must be > 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var d Dist
			err := yaml.Unmarshal([]byte(tc.yaml), &d)
			if err == nil {
				err = d.Validate("x")
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func newTestSource(seed uint64) *rand.PCG { return rand.NewPCG(seed, 0) }

// TestResolvePaths: relative empirical files move under the scenario's
// directory; absolute ones and other kinds stay.
func TestResolvePaths(t *testing.T) {
	emp := func(file string) Dist { return Dist{Kind: "empirical", File: file, Column: "output"} }
	shared := &PhaseSwitch{AtFraction: 0.5, Fanout: emp("f.csv")}
	cfg := Config{
		Batches: BatchProcess{Size: emp("sizes.csv")},
		Behaviours: map[string]Behaviour{
			"a": {OutputTokens: emp("out.csv"), PromptTokens: emp("/abs/in.csv"), Turns: Fixed(3), PhaseSwitch: shared},
		},
	}
	cfg.ResolvePaths(filepath.Join("scen", "dir"))
	got := []string{cfg.Batches.Size.File, cfg.Behaviours["a"].OutputTokens.File, cfg.Behaviours["a"].PromptTokens.File,
		cfg.Behaviours["a"].Turns.File, cfg.Behaviours["a"].PhaseSwitch.Fanout.File, shared.Fanout.File}
	want := []string{filepath.Join("scen", "dir", "sizes.csv"), filepath.Join("scen", "dir", "out.csv"), "/abs/in.csv",
		"", filepath.Join("scen", "dir", "f.csv"), "f.csv"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLoopFromMemoryMatchesRereading: a looping trace's later passes come
// from its first pass kept in memory when it fits (maxCachedRecords); they
// must be exactly the calls that reading the file again gives, which the
// reader still does for a longer trace (forced here with noCache).
func TestLoopFromMemoryMatchesRereading(t *testing.T) {
	short := writeFile(t, "short.jsonl", `{"timestamp": 0, "input_length": 10, "output_length": 1}
{"timestamp": 0.25, "input_length": 20, "output_length": 2}
{"timestamp": 0.5, "input_length": 30, "output_length": 3}
`)
	for _, tc := range []struct {
		name, file string
		opt        ReplayOptions
	}{
		{"a trace of half a millisecond over a second", short, ReplayOptions{Loop: true, Horizon: time.Second}},
		{"the Azure conversation trace, three passes at 50x", convEmbedded, ReplayOptions{Loop: true, Speedup: 50, Horizon: 3 * time.Hour / 50 * 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := func(noCache bool) (calls []Call, passes int) {
				src, closer, err := OpenRequestTrace(tc.file, "", tc.opt)
				if err != nil {
					t.Fatal(err)
				}
				defer closer.Close()
				r := src.(*requestReader)
				r.noCache = noCache
				for c, ok := r.Next(); ok; c, ok = r.Next() {
					calls = append(calls, c)
				}
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
				if !noCache && r.cache == nil {
					t.Fatal("the first pass was not kept in memory")
				}
				return calls, r.pass
			}
			fromMemory, passes := read(false)
			fromFile, _ := read(true)
			if passes < 2 {
				t.Fatalf("%d passes: the test needs the trace looped", passes+1)
			}
			if diff := cmp.Diff(fromFile, fromMemory); diff != "" {
				t.Errorf("calls from memory differ from the file read again (-file +memory):\n%s", diff)
			}
		})
	}
}

// TestRequestTraceBoundedAndEncoded: a request trace whose header line
// never ends fails once the line passes maxLine, without reading on; a
// UTF-16 trace and gzip inside gzip are named as such.
func TestRequestTraceBoundedAndEncoded(t *testing.T) {
	var u16 []byte
	for _, r := range "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-01-01 00:00:00.1,1,1\n" {
		u16 = append(u16, byte(r), 0)
	}
	var inner, outer bytes.Buffer
	zw := gzip.NewWriter(&inner)
	zw.Write([]byte("TIMESTAMP,ContextTokens,GeneratedTokens\n"))
	zw.Close()
	zw = gzip.NewWriter(&outer)
	zw.Write(inner.Bytes())
	zw.Close()
	for _, tc := range []struct {
		name, file, text, want string
	}{
		{"endless header", "a.csv", "TIMESTAMP," + strings.Repeat("x", maxLine+10), ": a line longer than"},
		{"endless jsonl line", "m.jsonl", `{"timestamp": 0, "input_length": 1` + strings.Repeat(" ", maxLine+10), "longer than"},
		{"utf-16", "a.csv", string(append([]byte{0xff, 0xfe}, u16...)), ": UTF-16: convert to UTF-8"},
		{"utf-16 without mark", "a.csv", string(u16), ": UTF-16: convert to UTF-8"},
		{"gzip inside gzip", "a.csv.gz", outer.String(), ": gzip inside gzip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.file, tc.text)
			src, closer, err := OpenRequestTrace(path, "", ReplayOptions{})
			if err == nil {
				defer closer.Close()
				for _, ok := src.Next(); ok; _, ok = src.Next() {
				}
				err = src.Err()
			}
			if err == nil || !strings.HasPrefix(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %s…%s", err, path, tc.want)
			}
		})
	}
}

// TestRequestTraceMaxTokens: a request trace may give each request's
// max_tokens (azure: a MaxTokens column, blank for none; mooncake: a
// max_tokens field); a looping trace replays it from memory on its later
// passes; a bad one is refused at its line.
func TestRequestTraceMaxTokens(t *testing.T) {
	dir := t.TempDir()
	azure := filepath.Join(dir, "a.csv")
	os.WriteFile(azure, []byte("TIMESTAMP,ContextTokens,GeneratedTokens,MaxTokens\n"+
		"2023-11-16 18:00:00.0000000,100,10,500\n2023-11-16 18:00:01.0000000,200,20,\n2023-11-16 18:00:02.0000000,300,30,800\n"), 0o644)
	moon := filepath.Join(dir, "m.jsonl")
	os.WriteFile(moon, []byte(`{"timestamp": 0, "input_length": 100, "output_length": 10, "max_tokens": 500}`+"\n"+
		`{"timestamp": 1000, "input_length": 200, "output_length": 20}`+"\n"+
		`{"timestamp": 2000, "input_length": 300, "output_length": 30, "max_tokens": 800}`+"\n"), 0o644)
	for _, c := range []struct {
		path   string
		format RequestFormat
	}{{azure, RequestAzure}, {moon, RequestMooncake}} {
		src, closer, err := OpenRequestTrace(c.path, c.format, ReplayOptions{Loop: true, Horizon: 9 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for call, ok := src.Next(); ok; call, ok = src.Next() {
			got = append(got, call.MaxTokens)
		}
		closer.Close()
		if err := src.Err(); err != nil {
			t.Fatal(err)
		}
		// Every pass gives the records' max_tokens in order, the later
		// passes from memory.
		var want []int
		for i := range got {
			want = append(want, []int{500, 0, 800}[i%3])
		}
		if diff := cmp.Diff(want, got); diff != "" || len(got) < 6 {
			t.Errorf("%s: max_tokens per request over %d requests (-want +got):\n%s", c.format, len(got), diff)
		}
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("TIMESTAMP,ContextTokens,GeneratedTokens,MaxTokens\n2023-11-16 18:00:00.0000000,100,10,-5\n"), 0o644)
	src, closer, err := OpenRequestTrace(bad, RequestAzure, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	for _, ok := src.Next(); ok; _, ok = src.Next() {
	}
	if err := src.Err(); err == nil || !strings.Contains(err.Error(), "bad.csv:2: MaxTokens") {
		t.Errorf("a negative MaxTokens: %v, want an error at bad.csv:2: MaxTokens", err)
	}
}
