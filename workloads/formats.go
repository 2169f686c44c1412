package workloads

import (
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalsched/lab/internal/enum"
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

// RequestFormat is a public request trace's format: production[].format and
// an empirical distribution's format.
type RequestFormat string

// The request-trace formats.
const (
	RequestAzure    RequestFormat = "azure"
	RequestMooncake RequestFormat = "mooncake"
	// RequestGateway is a gateway's own request log as `sim trace import
	// --from litellm` writes it (requests_gateway.go): Mooncake's fields
	// plus each call's model, team and key. Never inferred from an
	// extension: its .jsonl would be read as Mooncake.
	RequestGateway RequestFormat = "gateway"
)

// RequestFormats are the request-trace formats OpenRequestTrace reads.
var RequestFormats = []RequestFormat{RequestAzure, RequestMooncake, RequestGateway}

func (f JobFormat) String() string     { return string(f) }
func (f RequestFormat) String() string { return string(f) }

// UnmarshalYAML refuses a job-trace format other than jsonl or csv where it
// is read.
func (f *JobFormat) UnmarshalYAML(n *yaml.Node) (err error) {
	*f, err = yamltree.EnumOf(n, TraceFormats)
	return err
}

// UnmarshalYAML refuses a request-trace format other than azure, mooncake or gateway
// where it is read.
func (f *RequestFormat) UnmarshalYAML(n *yaml.Node) (err error) {
	*f, err = yamltree.EnumOf(n, RequestFormats)
	return err
}

// formatSet is one family of trace formats: its name in errors, its
// members, and the member each file extension means.
type formatSet[T ~string] struct {
	what  string
	all   []T
	byExt map[string]T
	hint  string // the extensions, for an error when none fits
}

var (
	jobFormats     = formatSet[JobFormat]{"trace", TraceFormats, map[string]JobFormat{".jsonl": JobJSONL, ".ndjson": JobJSONL, ".json": JobJSONL, ".csv": JobCSV}, ".jsonl or .csv"}
	requestFormats = formatSet[RequestFormat]{"request-trace", RequestFormats, map[string]RequestFormat{".csv": RequestAzure, ".jsonl": RequestMooncake}, ".csv for azure or .jsonl for mooncake"}
)

// parse reads a format name from a flag: "" (infer it from the file name)
// or a member.
func (s formatSet[T]) parse(name string) (T, error) {
	if v, ok := enum.Of(s.all, name); ok || name == "" {
		return v, nil
	}
	return "", s.unknown(name)
}

func (s formatSet[T]) unknown(name string) error {
	return fmt.Errorf("unknown %s format %q (want %s)", s.what, name, enum.List(s.all))
}

// resolve is format, or with format empty the one path's extension means
// (a trailing .gz aside).
func (s formatSet[T]) resolve(path string, format T) (T, error) {
	if format == "" {
		if v, ok := s.byExt[strings.ToLower(filepath.Ext(withoutGz(path)))]; ok {
			return v, nil
		}
		return "", fmt.Errorf("%s: cannot infer the %s format from the extension (want %s, or give the format)", path, s.what, s.hint)
	}
	if _, ok := enum.Of(s.all, string(format)); !ok {
		return "", s.unknown(string(format))
	}
	return format, nil
}

// ParseJobFormat reads a job-trace format name from a flag: "" (infer it
// from the file name), jsonl or csv.
func ParseJobFormat(s string) (JobFormat, error) { return jobFormats.parse(s) }

// ParseRequestFormat reads a request-trace format name from a flag: ""
// (infer it from the file name), azure, mooncake or gateway.
func ParseRequestFormat(s string) (RequestFormat, error) { return requestFormats.parse(s) }

// TraceFormat resolves a job-trace format, inferring it from the file
// name's extension when format is empty (.jsonl, .ndjson, .json: jsonl;
// .csv: csv; "-", standard input or output: jsonl).
func TraceFormat(name string, format JobFormat) (JobFormat, error) {
	if name == "-" && format == "" {
		return JobJSONL, nil
	}
	return jobFormats.resolve(name, format)
}

// requestFormat resolves a request-trace format, or infers it from the
// extension (.csv: azure; .jsonl: mooncake).
func requestFormat(path string, format RequestFormat) (RequestFormat, error) {
	return requestFormats.resolve(path, format)
}
