package workloads

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// parseJSONDecoder is parseJSON with encoding/json's Decoder walking the
// members instead of the scanner: the alternative BenchmarkJSONRecord
// measures, and the reference TestJSONSplitMatchesDecoder checks against.
func (t *TraceReader) parseJSONDecoder(line []byte, last bool) {
	t.splitJSON(line, last, decoderMembers)
}

const jsonSpace = " \t\r\n"

// decoderMembers is jsonMembers by json.Decoder: each member's quoted key
// and value, sliced from obj at the offsets the decoder reports.
func decoderMembers(obj []byte, fn func(key, val []byte) error) error {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	var skip json.RawMessage
	for dec.More() {
		from := dec.InputOffset()
		if _, err := dec.Token(); err != nil {
			return err
		}
		key := bytes.TrimLeft(obj[from:dec.InputOffset()], jsonSpace+",")
		from = dec.InputOffset()
		if err := dec.Decode(&skip); err != nil {
			return err
		}
		if err := fn(key, bytes.TrimLeft(obj[from:dec.InputOffset()], jsonSpace+":")); err != nil {
			return err
		}
	}
	return nil
}

// jsonRecords is a generated trace's records, then awkward and bad ones.
func jsonRecords(tb testing.TB) (good, awkward [][]byte) {
	g := generate(tb, testConfig(), 30*time.Minute, 3)
	var buf bytes.Buffer
	if _, err := WriteTrace(&buf, "jsonl", g, testCatalogue, ClassNames(g.Classes())); err != nil {
		tb.Fatal(err)
	}
	for _, s := range []string{
		`{"v":1,"id":"j3","arrival_s":3,"account":"a","project":"p","batch":"b","model":"m-a","plan":[{"calls":[[10,5],[-4,5]]}]}`,
		` { "v" : 1 , "id" : "j\u00e93\n" , "arrival_s" : 3e0 ,"acc\u006funt":"a\"b","project":"p","batch":"b","model":"m-a","plan":[ {"calls":[[10,5]] , "tool_s" : 1.5 } ] } `,
		`{"v":1,"id":"j3",}`, `[1,2]`, `"x"`, `12`, `null`, `{}`, `{"colour":{"a":[1,2,{"b":"}"}]}}`,
		`{"v":1,"v":2}`, `{"v":null,"id":true,"arrival_s":false,"plan":{"x":1}}`,
		"{\"id\":\"a\xffb\",\"k\xfe\":1}", `{"seed":18446744073709551615,"arrival_s":-0.5e-3}`,
		`{"v":1,"id":"j3","arrival_s":3`,
	} {
		awkward = append(awkward, []byte(s))
	}
	return bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")), awkward
}

// TestJSONSplitMatchesDecoder: the scanner splits every record, good or
// bad, as encoding/json's Decoder does: the same fields, kinds and texts,
// and the same error.
func TestJSONSplitMatchesDecoder(t *testing.T) {
	type split struct {
		Kinds, Texts [numFields]string
		OK           bool
		Err          string
	}
	run := func(parse func(*TraceReader, []byte, bool), line []byte, last bool) split {
		r := &TraceReader{name: "x.jsonl", line: 1, rawOK: true}
		parse(r, line, last)
		s := split{OK: r.rawOK}
		for i, f := range r.raw {
			s.Kinds[i], s.Texts[i] = string(f.kind), string(f.text)
		}
		if r.recErr != nil {
			s.Err = r.recErr.Error()
		}
		return s
	}
	good, awkward := jsonRecords(t)
	for i, line := range append(awkward, good...) {
		for _, last := range []bool{false, true} {
			want := run((*TraceReader).parseJSONDecoder, line, last)
			got := run((*TraceReader).parseJSON, line, last)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("record %d %q (last %v) (-decoder +scanner):\n%s", i, line, last, diff)
			}
		}
	}
}

// BenchmarkJSONRecord splits generated JSON Lines records with the
// scanner and with encoding/json's Decoder, in one run:
//
//	go test -run '^$' -bench JSONRecord -benchtime 100000x ./workloads/
func BenchmarkJSONRecord(b *testing.B) {
	lines, _ := jsonRecords(b)
	for _, impl := range []struct {
		name  string
		parse func(*TraceReader, []byte, bool)
	}{{"scanner", (*TraceReader).parseJSON}, {"encoding-json-decoder", (*TraceReader).parseJSONDecoder}} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			r := &TraceReader{name: "x.jsonl"}
			for i := 0; i < b.N; i++ {
				r.raw = [numFields]rawField{}
				r.scratch = r.scratch[:0]
				r.rawOK = true
				impl.parse(r, lines[i%len(lines)], false)
				if !r.rawOK {
					b.Fatal(r.recErr)
				}
			}
		})
	}
}
