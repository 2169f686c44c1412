package workloads

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalsched/lab/internal/yamltree"
)

// JobFormat is a job trace's format (trace_format.go describes both).
type JobFormat string

// The job-trace formats.
const (
	JobJSONL JobFormat = "jsonl"
	JobCSV   JobFormat = "csv"
)

// TraceFormats are the job-trace formats.
var TraceFormats = []JobFormat{JobJSONL, JobCSV}

func (f JobFormat) String() string { return string(f) }

// UnmarshalYAML refuses a job-trace format other than jsonl or csv where it
// is read.
func (f *JobFormat) UnmarshalYAML(n *yaml.Node) error {
	v, err := yamltree.EnumOf(n, TraceFormats)
	*f = v
	return err
}

// ParseJobFormat reads a job-trace format name from a flag: "" (infer it
// from the file name), jsonl or csv.
func ParseJobFormat(s string) (JobFormat, error) {
	if f := JobFormat(s); f == "" || slices.Contains(TraceFormats, f) {
		return f, nil
	}
	return "", fmt.Errorf("unknown trace format %q (want jsonl or csv)", s)
}

// TraceFormat resolves a job-trace format, inferring it from the file
// name's extension when format is empty (.jsonl, .ndjson, .json: jsonl;
// .csv: csv; "-", standard input or output: jsonl).
func TraceFormat(name string, format JobFormat) (JobFormat, error) {
	switch format {
	case JobJSONL, JobCSV:
		return format, nil
	case "":
		if name == "-" {
			return JobJSONL, nil
		}
		switch strings.ToLower(filepath.Ext(withoutGz(name))) {
		case ".jsonl", ".ndjson", ".json":
			return JobJSONL, nil
		case ".csv":
			return JobCSV, nil
		}
		return "", fmt.Errorf("%s: cannot infer the trace format from the extension (want .jsonl or .csv, or give the format)", name)
	}
	return "", fmt.Errorf("unknown trace format %q (want jsonl or csv)", string(format))
}

// RequestFormat is a public request trace's format: production[].format and
// an empirical distribution's format.
type RequestFormat string

// The request-trace formats.
const (
	RequestAzure    RequestFormat = "azure"
	RequestMooncake RequestFormat = "mooncake"
)

// RequestFormats are the request-trace formats OpenRequestTrace reads.
var RequestFormats = []RequestFormat{RequestAzure, RequestMooncake}

func (f RequestFormat) String() string { return string(f) }

// UnmarshalYAML refuses a request-trace format other than azure or mooncake
// where it is read.
func (f *RequestFormat) UnmarshalYAML(n *yaml.Node) error {
	v, err := yamltree.EnumOf(n, RequestFormats)
	*f = v
	return err
}

// ParseRequestFormat reads a request-trace format name from a flag: ""
// (infer it from the file name), azure or mooncake.
func ParseRequestFormat(s string) (RequestFormat, error) {
	if f := RequestFormat(s); f == "" || slices.Contains(RequestFormats, f) {
		return f, nil
	}
	return "", fmt.Errorf("unknown request-trace format %q (want azure or mooncake)", s)
}

// requestFormat resolves a format, or infers it from the extension.
func requestFormat(path string, format RequestFormat) (RequestFormat, error) {
	switch format {
	case RequestAzure, RequestMooncake:
		return format, nil
	case "":
		switch strings.ToLower(filepath.Ext(withoutGz(path))) {
		case ".csv":
			return RequestAzure, nil
		case ".jsonl":
			return RequestMooncake, nil
		}
		return "", fmt.Errorf("%s: cannot infer the request-trace format from the extension (want .csv for azure or .jsonl for mooncake, or give the format)", path)
	}
	return "", fmt.Errorf("unknown request-trace format %q (want azure or mooncake)", string(format))
}
