package sim

// jobFailed records a job that ended because one of its calls could never
// succeed (larger than a quota window's limit): it frees its container and
// leaves its batch like a finished job, but is counted as failed, not
// completed, and adds no job times.
func (r *recorder) jobFailed(j *jobState, running int) {
	m := &r.lanes[j.w.Model]
	r.set(&m.running, running)
	r.counts.JobsFailed++
	r.logJob(j, LogJobFail)
	r.fairFinish(j)
}
