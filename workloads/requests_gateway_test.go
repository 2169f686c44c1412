package workloads

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// gatewaySample is what `sim trace import --from litellm` writes for four
// calls of two teams on two models (keys left out).
const gatewaySample = `{"timestamp":0,"input_length":1200,"output_length":300,"model":"hot-a","team":"search","latency_ms":1250}
{"timestamp":500,"input_length":3400,"output_length":512,"model":"hot-b","team":"support","latency_ms":1500}
{"timestamp":3000.5,"input_length":900,"output_length":150,"model":"hot-a","team":"search","key":"k1","latency_ms":900}
{"timestamp":7000,"input_length":5100,"output_length":800,"model":"hot-a","team":"support","latency_ms":2500}
`

func readAllCalls(t *testing.T, path string, format RequestFormat, opt ReplayOptions) ([]Call, error) {
	t.Helper()
	src, closer, err := OpenRequestTrace(path, format, opt)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	var calls []Call
	for {
		c, ok := src.Next()
		if !ok {
			return calls, src.Err()
		}
		calls = append(calls, c)
	}
}

// TestGatewaySelects: a production stream replays the calls of its model
// (and team, key), at their times from the file's first call; a looping
// stream's span is the whole file's.
func TestGatewaySelects(t *testing.T) {
	p := filepath.Join(t.TempDir(), "prod.jsonl")
	os.WriteFile(p, []byte(gatewaySample), 0o644)
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	for _, tc := range []struct {
		name string
		opt  ReplayOptions
		want []Call
	}{
		{"all", ReplayOptions{}, []Call{{0, 1200, 300, 0}, {ms(500), 3400, 512, 0}, {ms(3000.5), 900, 150, 0}, {ms(7000), 5100, 800, 0}}},
		{"model", ReplayOptions{Model: "hot-a"}, []Call{{0, 1200, 300, 0}, {ms(3000.5), 900, 150, 0}, {ms(7000), 5100, 800, 0}}},
		{"model and team", ReplayOptions{Model: "hot-a", Team: "support"}, []Call{{ms(7000), 5100, 800, 0}}},
		{"team", ReplayOptions{Team: "support"}, []Call{{ms(500), 3400, 512, 0}, {ms(7000), 5100, 800, 0}}},
		{"key", ReplayOptions{Key: "k1"}, []Call{{ms(3000.5), 900, 150, 0}}},
		{"nobody", ReplayOptions{Team: "nobody"}, nil},
		// Span 7 s (the file's): the second pass of team support's hot-b
		// call comes 7 s after the first.
		{"loop", ReplayOptions{Model: "hot-b", Loop: true, Horizon: 15 * time.Second}, []Call{{ms(500), 3400, 512, 0}, {ms(7500), 3400, 512, 0}, {ms(14500), 3400, 512, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAllCalls(t, p, RequestGateway, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestGatewayRefusals: a gateway line's problems name line and field; a
// gateway trace read as Mooncake (its .jsonl's inferred format) is refused
// rather than replayed on one model; teams are only a gateway trace's.
func TestGatewayRefusals(t *testing.T) {
	good := `{"timestamp":0,"input_length":1,"output_length":1,"model":"m"}`
	for _, tc := range []struct {
		name, text string
		format     RequestFormat
		opt        ReplayOptions
		want       string
	}{
		{"read as mooncake", good + "\n", "", ReplayOptions{}, ":1: model: a gateway trace's field"},
		{"team on azure", "TIMESTAMP,ContextTokens,GeneratedTokens\n", RequestAzure, ReplayOptions{Team: "t"}, "team: only a gateway trace"},
		{"missing model", good + "\n" + `{"timestamp":1,"input_length":1,"output_length":1}` + "\n", RequestGateway, ReplayOptions{}, ":2: model: missing"},
		{"unknown field", `{"timestamp":0,"input_length":1,"output_length":1,"model":"m","extra":1}` + "\n", RequestGateway, ReplayOptions{}, ":1: extra: unknown field"},
		{"repeated field", `{"timestamp":0,"input_length":1,"output_length":1,"model":"m","model":"n"}` + "\n", RequestGateway, ReplayOptions{}, ":1: model: repeated"},
		{"negative tokens", `{"timestamp":0,"input_length":-1,"output_length":1,"model":"m"}` + "\n", RequestGateway, ReplayOptions{}, ":1: input_length: want an integer"},
		{"string time", `{"timestamp":"0","input_length":1,"output_length":1,"model":"m"}` + "\n", RequestGateway, ReplayOptions{}, ":1: timestamp: want milliseconds"},
		{"out of order", `{"timestamp":5,"input_length":1,"output_length":1,"model":"m"}` + "\n" + good + "\n", RequestGateway, ReplayOptions{Model: "other"}, ":2: timestamp: out of order"},
		{"truncated", good + "\n" + `{"timestamp":1,"input_`, RequestGateway, ReplayOptions{}, ":2: record: truncated last line"},
		{"long name", `{"timestamp":0,"input_length":1,"output_length":1,"model":"` + strings.Repeat("m", 300) + `"}` + "\n", RequestGateway, ReplayOptions{}, ":1: model: want a non-empty string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "prod.jsonl")
			if tc.format == RequestAzure {
				p = filepath.Join(t.TempDir(), "prod.csv")
			}
			os.WriteFile(p, []byte(tc.text), 0o644)
			_, err := readAllCalls(t, p, tc.format, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestGatewayCallLine: the line written is JSON (a control character
// escaped as JSON does, not as Go quotes) and what the reader reads.
func TestGatewayCallLine(t *testing.T) {
	c := GatewayCall{At: 3000500, In: 900, Out: 150, Model: "hot-a", Team: "te\"am\x01<", LatencyMS: 900}
	want := `{"timestamp":3000.5,"input_length":900,"output_length":150,"model":"hot-a","team":"te\"am\u0001\u003c","latency_ms":900}` + "\n"
	if diff := cmp.Diff(want, string(c.AppendJSON(nil))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	p := filepath.Join(t.TempDir(), "one.jsonl")
	os.WriteFile(p, []byte(want), 0o644)
	got, err := readAllCalls(t, p, RequestGateway, ReplayOptions{Team: "te\"am\x01<"})
	if err != nil || len(got) != 1 || got[0] != (Call{0, 900, 150, 0}) {
		t.Errorf("read back %v, %v", got, err)
	}
}
