package workloads

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFormatResolve: a format given is kept, an empty one inferred from the
// extension (case and a trailing .gz aside), anything else refused with
// the list of formats.
func TestFormatResolve(t *testing.T) {
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	for _, tc := range []struct {
		path, format string
		job          JobFormat
		jobErr       string
		req          RequestFormat
		reqErr       string
	}{
		{path: "a.jsonl", job: JobJSONL, req: RequestMooncake},
		{path: "a.CSV.gz", job: JobCSV, req: RequestAzure},
		{path: "a.ndjson", job: JobJSONL, reqErr: "a.ndjson: cannot infer the request-trace format from the extension (want .csv for azure or .jsonl for mooncake, or give the format)"},
		{path: "a.json", job: JobJSONL, reqErr: "a.json: cannot infer the request-trace format from the extension (want .csv for azure or .jsonl for mooncake, or give the format)"},
		{path: "-", job: JobJSONL, reqErr: "-: cannot infer the request-trace format from the extension (want .csv for azure or .jsonl for mooncake, or give the format)"},
		{path: "a.txt", jobErr: "a.txt: cannot infer the trace format from the extension (want .jsonl or .csv, or give the format)",
			reqErr: "a.txt: cannot infer the request-trace format from the extension (want .csv for azure or .jsonl for mooncake, or give the format)"},
		{path: "a.txt", format: "csv", job: JobCSV, reqErr: `unknown request-trace format "csv" (want azure, mooncake or gateway)`},
		{path: "a.csv", format: "mooncake", jobErr: `unknown trace format "mooncake" (want jsonl or csv)`, req: RequestMooncake},
		{path: "a.csv", format: "xml", jobErr: `unknown trace format "xml" (want jsonl or csv)`, reqErr: `unknown request-trace format "xml" (want azure, mooncake or gateway)`},
	} {
		job, err := TraceFormat(tc.path, JobFormat(tc.format))
		if diff := cmp.Diff([2]string{string(tc.job), tc.jobErr}, [2]string{string(job), errText(err)}); diff != "" {
			t.Errorf("TraceFormat(%q, %q) (-want +got):\n%s", tc.path, tc.format, diff)
		}
		req, err := requestFormat(tc.path, RequestFormat(tc.format))
		if diff := cmp.Diff([2]string{string(tc.req), tc.reqErr}, [2]string{string(req), errText(err)}); diff != "" {
			t.Errorf("requestFormat(%q, %q) (-want +got):\n%s", tc.path, tc.format, diff)
		}
	}
}

// TestParseFormatFlag: a flag's format is empty (infer), a member, or
// refused.
func TestParseFormatFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		job  JobFormat
		req  RequestFormat
		errs [2]bool
	}{
		{"", "", "", [2]bool{false, false}},
		{"jsonl", JobJSONL, "", [2]bool{false, true}},
		{"azure", "", RequestAzure, [2]bool{true, false}},
		{"JSONL", "", "", [2]bool{true, true}},
	} {
		job, jerr := ParseJobFormat(tc.in)
		req, rerr := ParseRequestFormat(tc.in)
		if diff := cmp.Diff([2]bool{jerr != nil, rerr != nil}, tc.errs); diff != "" || job != tc.job || req != tc.req {
			t.Errorf("%q: job %q (%v), request %q (%v); want %q, %q, errors %v", tc.in, job, jerr, req, rerr, tc.job, tc.req, tc.errs)
		}
	}
}
