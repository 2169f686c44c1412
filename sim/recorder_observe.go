package sim

// observe turns an observation into the run's measurements. The per-call
// observations' work is written out here rather than in helpers too large
// to inline.
func (r *recorder) observe(w *World, o *obs) {
	switch o.kind {
	case obsJobArrived:
		r.jobArrived(w.jobs.at(o.id), o.flag)
	case obsJobStarted:
		r.jobStarted(w.running.at(o.id), int(o.n))
	case obsJobEnded:
		r.jobEnded(w.running.at(o.id), int(o.n), o.flag)
	case obsGatewayOnly:
		// A model's jobs holding a container only to wait on the gateway:
		// one more (flag) or one fewer.
		l := &r.lanes[o.model].gwOnly
		v := l.v - 1
		if o.flag {
			v = l.v + 1
		}
		r.set(l, v)
	case obsCallMade:
		r.counts.CallsCreated++
		if o.n != notQueued {
			r.depth(o.model, int(o.n))
		}
	case obsCallQueued:
		r.depth(o.model, int(o.n))
	case obsTry:
		r.tried(w, &w.calls[o.id], o)
	case obsCallServed:
		r.busy(o.model, int(o.n))
	case obsCallAnswered:
		cs := &w.calls[o.id]
		if o.flag {
			r.settled(cs, w.prov.models[cs.model].orgOf(cs.source()), o.x)
		}
		now := r.now()
		m := &r.lanes[cs.model]
		r.setAt(&m.busy, int(o.n), now)
		r.counts.CallsAnswered++
		r.answered(cs, m, now)
		if cs.kind == jobCall {
			r.laneTokens(&w.running.at(cs.owner).waitingJob, cs.in+cs.out)
		}
	case obsCallFailed:
		r.failed(&w.calls[o.id])
	case obsStreams:
		r.streams(o.model, int(o.n))
	case obsProdArrived:
		r.prod[o.id].arrived++
	case obsBatch:
		r.batchEvent(w, o.id, o.ev)
	}
}

// tried: a try of cs, which left its gateway queue unless o.n is
// notQueued, had the provider's verdict; an accepted one is counted where
// its organisation (and virtual key) count it.
func (r *recorder) tried(w *World, cs *callState, o *obs) {
	if o.n != notQueued {
		// It waited in the gateway queue.
		m := &r.lanes[cs.model]
		now := r.now()
		r.setAt(&m.depth, int(o.n), now)
		if now >= r.windowStart {
			m.queueEntries++
			m.queueWaitSum += (now - cs.queuedAt).Seconds()
		}
	}
	r.counts.Tries++
	if o.verdict == accepted {
		d := &w.prov.models[cs.model]
		r.acceptedTry(cs, d.orgOf(cs.source()), d.key, o.x)
		return
	}
	r.refusedTry(cs, o)
}

// refusedTry: a try of cs was refused (o.verdict).
func (r *recorder) refusedTry(cs *callState, o *obs) {
	switch o.verdict {
	case rejectedKey:
		r.keyRejected(cs)
	case rejectedOutage:
		r.outage(cs)
	case rejected429:
		r.rejected(cs, o.flag)
	}
}
