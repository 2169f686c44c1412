package workloads

import (
	"github.com/evalsched/lab/internal/field"
)

// TraceVersion is the version of the job-trace format, specified here (and
// in docs/reference/traces.md): a file of jobs a run replays instead of the synthetic
// generator.
//
// # Format (version 1)
//
// A job trace is JSON Lines (one JSON object per line) or CSV (a header row,
// then one row per job). docs/reference/traces.md has the same specification with
// examples. Every record is one job and carries the format version in its
// v field, so each line stands alone (files can be cut, concatenated or
// grepped). Fields:
//
//	field         type             required  meaning
//	v             integer          yes       format version: 1
//	id            string           yes       job id, unique in the file, non-empty
//	arrival_s     number           yes       arrival in seconds since the start (>= 0, non-decreasing)
//	account       string           yes       account id (non-empty)
//	project       string           yes       project id (non-empty)
//	batch         string           yes       batch id (non-empty)
//	account_tier  integer 0..100   no        tier set on the account; 0 or absent = inherit
//	project_tier  integer 0..100   no        tier set on the project; 0 or absent = inherit
//	batch_tier    integer 0..100   no        tier set on the batch; 0 or absent = inherit
//	model         string           yes       model name, one of the scenario's catalogue
//	grading       string           no        model of a chained grading job; absent or "" = none
//	class         string           one of    behaviour class (a key of the scenario's workload.behaviours)
//	plan          see below        one of    explicit call plan
//	seed          unsigned 64-bit  no        seeds the job's agent loop; absent = derived from id
//
// A job has exactly one of class and plan. A class job draws its turns,
// calls, tokens and tool time from the class with its seed, exactly as a
// generated job with that class and seed does; so a generated trace replays
// identically. A plan job makes exactly the calls its plan lists; its seed
// only drives each call's latency variation. The grading job of a class job
// has the behaviour the class's grading.behaviour names (a single call when
// it names none or the class has no grading block); a plan job's grading job
// is a single call. arrival_s is decimal seconds, read exactly to the
// nanosecond when it has at most nine fraction digits.
//
// JSON Lines: one object per line with the fields above; strings are JSON
// strings and numbers JSON numbers (a string where a number belongs is an
// error, and the reverse); null counts as absent. Unknown and repeated
// fields are errors. Blank lines are skipped. The plan is an array of turns,
// each {"calls": [[IN, OUT], ...], "tool_s": SECONDS} ("tool_s" optional,
// default 0), or a string in the compact encoding below:
//
//	{"v":1,"id":"j1","arrival_s":0.5,"account":"a","project":"a/p1","batch":"b1","model":"gpt-5.5","class":"agentic","seed":42}
//	{"v":1,"id":"j2","arrival_s":1,"account":"a","project":"a/p1","batch":"b1","model":"gpt-5.5","plan":[{"calls":[[1200,300],[1200,280]],"tool_s":2.5},{"calls":[[2100,450]]}]}
//
// CSV (RFC 4180): the first row names the columns, in any order; v, id,
// arrival_s, account, project, batch, model and at least one of class and
// plan are required columns, the others optional; unknown or repeated
// column names are errors. An empty cell is an absent field. Every row has
// as many cells as the header. The plan cell holds the compact encoding, or
// the JSON array above when it starts with '['. The compact encoding lists
// turns separated by ';', each turn its calls IN:OUT separated by '+',
// optionally followed by /TOOL_SECONDS:
//
//	v,id,arrival_s,account,project,batch,account_tier,project_tier,batch_tier,model,grading,class,seed,plan
//	1,j2,1,a,a/p1,b1,,,,gpt-5.5,,,,1200:300+1200:280/2.5;2100:450
//
// # Errors
//
// Every problem is reported as FILE:LINE: FIELD: problem, FIELD being the
// field (column) at fault or "record" for the line as a whole (invalid
// JSON, a truncated last line, a row with the wrong number of cells). A
// record is checked in this order, and only its first problem is reported:
// syntax, unknown fields, v, missing fields, types and ranges of each field,
// class and plan, the model, the grading model and the class against the
// scenario, arrival order (against the last good record), and, when asked
// (TraceOptions.UniqueIDs, always in ValidateTrace), a duplicate id.
//
// # Memory
//
// A TraceReader holds one record at a time; its memory does not grow with
// the trace, except for UniqueIDs, which keeps a 64-bit hash and a line
// number per id (some 20 to 40 bytes a job; ValidateTrace always does
// this), and Skipped, which keeps the skipped records' errors unless OnSkip
// takes them.
const TraceVersion = 1

// TraceError is one problem in a trace file, rendered FILE:LINE: FIELD:
// problem: the lab's field error, its Path the field (column) at fault or
// "record" for the record as a whole. Read it with errors.As.
type TraceError = field.Error

// TraceOptions tune a TraceReader.
type TraceOptions struct {
	// SkipInvalid skips bad records (see Skipped) instead of stopping at the
	// first. Errors that make the rest unreadable (a bad CSV header, an I/O
	// error) still stop the reader.
	SkipInvalid bool
	// UniqueIDs checks that ids do not repeat. It keeps a hash per id, so
	// memory grows with the trace (some 20 to 40 bytes a job).
	UniqueIDs bool
	// OnSkip, if set, receives each skipped record's error instead of the
	// reader keeping it for Skipped.
	OnSkip func(*TraceError)
}

// The fields of a record, in the order the writer emits them.
const (
	fV = iota
	fID
	fArrival
	fAccount
	fProject
	fBatch
	fAccountTier
	fProjectTier
	fBatchTier
	fModel
	fGrading
	fClass
	fSeed
	fPlan
	numFields
)

var fieldNames = [numFields]string{"v", "id", "arrival_s", "account", "project", "batch",
	"account_tier", "project_tier", "batch_tier", "model", "grading", "class", "seed", "plan"}

func fieldIndex(name string) int {
	for i, n := range fieldNames {
		if n == name {
			return i
		}
	}
	return -1
}

// A rawField is one field of a record before it is typed: for JSON the
// token's kind and text (a string's decoded content), for CSV the cell.
type rawField struct {
	kind byte // 's' string, 'n' number, 'a' array, 'o' object, 'b' bool, 'z' null, 'c' CSV cell
	text []byte
}

func (f rawField) present() bool {
	return f.kind != 0 && f.kind != 'z' && !(f.kind == 'c' && len(f.text) == 0)
}

func kindName(k byte) string {
	switch k {
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'a':
		return "an array"
	case 'o':
		return "an object"
	case 'b':
		return "a boolean"
	}
	return "null"
}
