package extpolicy

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/evalsched/lab/policies"
)

// appendDecide appends a decide message: the state of every model in
// columns, with the optional signals the state offers.
func (p *Policy) appendDecide(b []byte, now time.Time, state policies.State) []byte {
	n := p.models
	b = append(b, `{"type":"decide","seq":`...)
	b = strconv.AppendInt(b, p.seq, 10)
	b = append(b, `,"t":`...)
	b = strconv.AppendInt(b, p.ns(now), 10)
	b = append(b, `,"free":`...)
	b = strconv.AppendInt(b, int64(state.FreeContainers()), 10)
	b = append(b, `,"running":[`...)
	for m := range n {
		b = comma(b, m)
		b = strconv.AppendInt(b, int64(state.Running(policies.ModelID(m))), 10)
	}
	b = append(b, `],"depth":[`...)
	for m := range n {
		b = comma(b, m)
		d, _ := state.GatewayDepth(policies.ModelID(m))
		b = strconv.AppendInt(b, int64(d), 10)
	}
	b = append(b, `],"depth_at":[`...)
	for m := range n {
		b = comma(b, m)
		_, at := state.GatewayDepth(policies.ModelID(m))
		b = p.appendTime(b, at)
	}
	b = append(b, ']')
	if ls, ok := state.(policies.LatencySignals); ok {
		b = append(b, `,"latency":{"seconds":[`...)
		for m := range n {
			b = comma(b, m)
			s, _ := ls.CallLatency(policies.ModelID(m))
			b = p.appendFloat(b, s)
		}
		b = append(b, `],"at":[`...)
		for m := range n {
			b = comma(b, m)
			_, at := ls.CallLatency(policies.ModelID(m))
			b = p.appendTime(b, at)
		}
		b = append(b, `],"throttled":[`...)
		for m := range n {
			b = comma(b, m)
			b = strconv.AppendInt(b, ls.Throttled(policies.ModelID(m)), 10)
		}
		b = append(b, "]}"...)
	}
	if qs, ok := state.(policies.QuotaState); ok {
		b = append(b, `,"quota":{"rejections":[`...)
		for m := range n {
			b = comma(b, m)
			b = strconv.AppendInt(b, int64(qs.Rejections(policies.ModelID(m))), 10)
		}
		var tries, rejected, below, at, use, prod, own []byte
		for m := range n {
			q := qs.Quota(policies.ModelID(m))
			tries = strconv.AppendInt(comma(tries, m), int64(q.Tries), 10)
			rejected = strconv.AppendInt(comma(rejected, m), int64(q.Rejected), 10)
			below = strconv.AppendBool(comma(below, m), q.BelowShare)
			at = p.appendTime(comma(at, m), q.AsOf)
			use = p.appendDims(comma(use, m), &q.Use)
			prod = p.appendDims(comma(prod, m), &q.ProductionUse)
			own = p.appendDims(comma(own, m), &q.ModelUse)
		}
		for _, col := range []struct {
			key string
			v   []byte
		}{{"tries", tries}, {"rejected", rejected}, {"use", use}, {"production_use", prod}, {"model_use", own}, {"below_share", below}, {"at", at}} {
			b = append(b, `],"`...)
			b = append(b, col.key...)
			b = append(b, `":[`...)
			b = append(b, col.v...)
		}
		b = append(b, "]}"...)
	}
	return append(b, "}\n"...)
}

func comma(b []byte, i int) []byte {
	if i > 0 {
		return append(b, ',')
	}
	return b
}

func (p *Policy) appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, p.ns(t), 10)
}

// appendFloat writes a float64 in its shortest form that reads back the
// same (a NaN or an infinity, which JSON lacks, is a broken invariant of
// the caller's and is sent as null).
func (p *Policy) appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

func (p *Policy) appendDims(b []byte, d *[policies.NumDims]float64) []byte {
	b = append(b, '[')
	for i, f := range d {
		b = p.appendFloat(comma(b, i), f)
	}
	return append(b, ']')
}

// appendString writes s as a JSON string.
func appendString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		q, _ := json.Marshal(s) // replaces invalid bytes as encoding/json does
		return append(b, q...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
