package sim

import (
	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/scenario"
)

// LogRecord is one event in the life of a job or a call.
type LogRecord struct {
	T      Time
	Event  LogEvent
	Job    policies.JobID
	Call   int64 // serial number of the call, -1 for job events
	Model  int32
	Org    int32 // -1: no quotas
	Tokens int32 // input + output tokens of the call
	Try    int32 // 1 for a call's first try
	// CountIn and CountOut are what the organisation counted: at an accept
	// the input and output counted at admission; at an answer the output
	// counted then (output: at_end), or minus what was given back
	// (max_tokens_reconciled). CacheRead is an accept's input read from
	// the prompt cache.
	CountIn, CountOut, CacheRead int32
	// Grading marks the arrival of a chained grading job.
	Grading bool
	// Project is a job event's project, numbered in order of first arrival.
	Project int32
	// Tier is a job event's effective tier.
	Tier int8
	// Ready is when a LogCacheReady's entry becomes readable.
	Ready Time
}

// LogEvent is what happened.
type LogEvent uint8

const (
	LogJobArrive LogEvent = iota
	LogJobStart
	LogJobFinish
	LogCallCreate
	LogCallAccept // counted against the quotas and served
	LogCall429    // rejected by a quota
	LogCallOutage // rejected: provider has no capacity
	LogCallAnswer // the provider answered
	LogCallFail   // the gateway gave up on the call
	LogJobFail    // the job ended failed (a call could never succeed)
	LogCallKey429 // rejected by the gateway on the call's virtual key
	LogSample     // a series sample: fairness windows are read at these
	// A batch job's request (batch.go): sent to its batch pool, enqueued
	// in it, completed, expired at the window's end, or refused (larger
	// than the pool's token limit).
	LogBatchSubmit
	LogBatchEnqueue
	LogBatchDone
	LogBatchExpire
	LogBatchRefuse
	// LogCacheReady: a call that wrote its job's prompt cache was served;
	// the entry is readable from Ready (its first token).
	LogCacheReady
)

// eventLog keeps a record of every job and call event (Options.Log): tests
// check conservation and quotas from it rather than from counters.
type eventLog struct {
	records []LogRecord
}

// observe appends the record of an observation, if it has one.
func (l *eventLog) observe(w *World, o *obs) {
	switch o.kind {
	case obsJobArrived:
		l.job(w, w.jobs.at(o.id), LogJobArrive)
	case obsJobStarted:
		l.job(w, &w.running.at(o.id).waitingJob, LogJobStart)
	case obsJobEnded:
		j := w.running.at(o.id)
		ev := LogJobFinish
		if j.failed {
			ev = LogJobFail
		}
		l.job(w, &j.waitingJob, ev)
	case obsCallMade:
		l.call(w, &w.calls[o.id], LogCallCreate)
	case obsTry:
		ev := LogCallAccept
		switch o.verdict {
		case rejectedKey:
			ev = LogCallKey429
		case rejectedOutage:
			ev = LogCallOutage
		case rejected429:
			ev = LogCall429
		}
		l.call(w, &w.calls[o.id], ev)
	case obsCacheReady:
		l.call(w, &w.calls[o.id], LogCacheReady)
		l.records[len(l.records)-1].Ready = o.d
	case obsCallAnswered:
		l.call(w, &w.calls[o.id], LogCallAnswer)
	case obsCallFailed:
		l.call(w, &w.calls[o.id], LogCallFail)
	case obsBatch:
		b := &w.batchReqs[o.id]
		l.records = append(l.records, LogRecord{T: w.now(), Event: o.ev, Job: b.job, Call: -1, Model: b.model,
			Org: int32(w.batch[b.pool].org), Tokens: b.in + b.out, CountIn: b.in, CountOut: b.out})
	case obsSample:
		l.records = append(l.records, LogRecord{T: w.now(), Event: LogSample, Job: -1, Call: -1, Model: -1, Org: -1, Project: -1})
	}
}

func (l *eventLog) job(w *World, j *waitingJob, ev LogEvent) {
	l.records = append(l.records, LogRecord{T: w.now(), Event: ev, Job: j.id, Call: -1, Model: j.model, Org: -1,
		Grading: j.grading, Project: j.project, Tier: int8(j.tier)})
}

// call records a call event with what the call's organisation counted.
func (l *eventLog) call(w *World, cs *callState, ev LogEvent) {
	job := policies.JobID(-1)
	if cs.kind == jobCall {
		job = w.running.at(cs.owner).id
	}
	org := w.prov.models[cs.model].orgOf(cs.source())
	var in, out int32
	if org >= 0 {
		r := &w.prov.rules[org]
		switch ev {
		case LogCallAccept:
			c := r.cost(cs.tokens())
			in, out = int32(c.in), int32(c.out)
		case LogCallAnswer:
			switch r.output {
			case scenario.OutputAtEnd, scenario.OutputProduced:
				out = cs.out
			case scenario.OutputReconciled:
				if cs.maxOut > cs.out {
					out = cs.out - cs.maxOut
				}
			}
		}
	}
	rec := LogRecord{T: w.now(), Event: ev, Job: job, Call: cs.serial,
		Model: cs.model, Org: int32(org), Tokens: cs.in + cs.out, Try: cs.attempts, CountIn: in, CountOut: out}
	if ev == LogCallAccept {
		rec.CacheRead = cs.cacheRead
	}
	l.records = append(l.records, rec)
}
