package workloads

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// mooncakeRecord is one Mooncake line; unknown fields (hash_ids) are ignored.
type mooncakeRecord struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int64   `json:"input_length"`
	OutputLength *int64   `json:"output_length"`
	// Model is not Mooncake's: a line with one is a gateway trace's, whose
	// calls on every model would otherwise replay on the stream's one.
	Model     *json.RawMessage `json:"model"`
	MaxTokens *int64           `json:"max_tokens"` // optional
}

func (r *requestReader) readMooncake() (time.Duration, int, int, bool) {
	for !r.done {
		line, err := readLine(r.br)
		if len(line) == 0 && err == io.EOF {
			return 0, 0, 0, false
		}
		if err != nil && err != io.EOF {
			r.err, r.done = fmt.Errorf("%s: %w", r.name, err), true
			return 0, 0, 0, false
		}
		r.line++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec mooncakeRecord
		if jerr := json.Unmarshal(line, &rec); jerr != nil {
			var te *json.UnmarshalTypeError
			switch {
			case errors.As(jerr, &te) && te.Field != "":
				r.fail(r.line, te.Field, "want a number, got JSON %s", te.Value)
			case err == io.EOF:
				r.fail(r.line, "record", "truncated last line: %v", jerr)
			default:
				r.fail(r.line, "record", "%v", jerr)
			}
			return 0, 0, 0, false
		}
		switch {
		case rec.Model != nil:
			r.fail(r.line, "model", "a gateway trace's field (sim trace import --from litellm writes them): read the file with format: gateway")
		case rec.Timestamp == nil:
			r.fail(r.line, "timestamp", "missing")
		case rec.InputLength == nil:
			r.fail(r.line, "input_length", "missing")
		case rec.OutputLength == nil:
			r.fail(r.line, "output_length", "missing")
		case !(*rec.Timestamp >= 0) || math.IsInf(*rec.Timestamp, 0):
			r.fail(r.line, "timestamp", "want milliseconds >= 0, got %g", *rec.Timestamp)
		case *rec.InputLength < 0 || *rec.InputLength > maxPlanTokens:
			r.fail(r.line, "input_length", "want a token count (an integer in [0, %d]), got %d", maxPlanTokens, *rec.InputLength)
		case *rec.OutputLength < 0 || *rec.OutputLength > maxPlanTokens:
			r.fail(r.line, "output_length", "want a token count (an integer in [0, %d]), got %d", maxPlanTokens, *rec.OutputLength)
		case rec.MaxTokens != nil && (*rec.MaxTokens < 0 || *rec.MaxTokens > maxPlanTokens):
			r.fail(r.line, "max_tokens", "want a token count (an integer in [0, %d]), got %d", maxPlanTokens, *rec.MaxTokens)
		}
		if r.done {
			return 0, 0, 0, false
		}
		ms, in, out := *rec.Timestamp, int(*rec.InputLength), int(*rec.OutputLength)
		r.lastMax = 0
		if rec.MaxTokens != nil {
			r.lastMax = int(*rec.MaxTokens)
		}
		at, ok := r.sinceFirst(ms)
		return at, in, out, ok
	}
	return 0, 0, 0, false
}
