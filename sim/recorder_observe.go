package sim

// observe turns an observation into the run's measurements. Every kind is
// handled here; a job's and the per-call kinds usually arrive instead
// through their own emitters (observe.go), which call the same handlers.
func (r *recorder) observe(w *World, o *obs) {
	switch o.kind {
	case obsJobArrived:
		r.jobArrived(w.jobs.at(o.id), o.flag)
	case obsJobStarted:
		r.jobStarted(w.running.at(o.id), int(o.n))
	case obsJobEnded:
		r.jobEnded(w.running.at(o.id), int(o.n), o.flag)
	case obsGatewayOnly:
		r.gatewayOnly(o.model, upDown(o.flag))
	case obsCallMade:
		r.callMade(o.model, o.n)
	case obsCallQueued:
		r.depth(o.model, int(o.n))
	case obsTry:
		r.tried(w, &w.calls[o.id], o.verdict, o.flag, o.n, o.x)
	case obsCallServed:
		r.busy(o.model, int(o.n))
	case obsCallAnswered:
		r.callAnswered(w, &w.calls[o.id], o.n, o.flag, o.x)
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

// gatewayOnly: a model's jobs holding a container only to wait on the
// gateway are d (+1 or -1) more. It and callMade read the clock and call
// setAt themselves, to stay small enough to inline into their emitters.
func (r *recorder) gatewayOnly(model int32, d int) {
	l := &r.lanes[model].gwOnly
	r.setAt(l, l.v+d, r.eng.Now())
}

// upDown is +1 for up, -1 for down.
func upDown(up bool) int {
	if up {
		return 1
	}
	return -1
}

// callMade: a call of model was made, into a gateway queue now depth
// deep unless depth is notQueued.
func (r *recorder) callMade(model, depth int32) {
	r.counts.CallsCreated++
	if depth != notQueued {
		r.setAt(&r.lanes[model].depth, int(depth), r.eng.Now())
	}
}

// callAnswered: the provider answered call cs, leaving its model's busy
// streams; when settled, its organisation counted counted more tokens. An
// evaluation call's measurements are taken here, not in a call of their
// own: one comes at every answer.
func (r *recorder) callAnswered(w *World, cs *callState, busy int32, settled bool, counted float64) {
	if settled {
		r.settled(cs, w.prov.models[cs.model].orgOf(cs.source()), counted)
	}
	now := r.now()
	m := &r.lanes[cs.model]
	r.setAt(&m.busy, int(busy), now)
	r.counts.CallsAnswered++
	if cs.kind == productionCall {
		r.prodAnswered(cs, now)
		return
	}
	m.cacheInSince += int64(cs.in)
	m.cacheReadSince += int64(cs.cacheRead)
	if cs.miss != cacheNoMiss {
		r.missed(m, cs.miss)
	}
	tokens := int64(cs.in) + int64(cs.out)
	if now >= r.windowStart {
		m.calls++
		m.tokens += tokens
		if r.prices != nil {
			r.bill(&m.bill, cs)
		}
	}
	r.laneTokens(&w.running.at(cs.owner).waitingJob, tokens)
}

// tried: a try of cs, which left its gateway queue (depth deep after it)
// unless depth is notQueued, had the provider's verdict v; an accepted one
// is counted where its organisation (and virtual key) count it, counted
// tokens; a refused one was burned or not.
func (r *recorder) tried(w *World, cs *callState, v verdict, burned bool, depth int32, counted float64) {
	m := &r.lanes[cs.model]
	if depth != notQueued {
		// It waited in the gateway queue.
		now := r.now()
		r.setAt(&m.depth, int(depth), now)
		if now >= r.windowStart {
			m.queueEntries++
			m.queueWaitSum += (now - cs.queuedAt).Seconds()
		}
	}
	r.counts.Tries++
	if v == accepted {
		d := &w.prov.models[cs.model]
		r.acceptedTry(cs, m, d.orgOf(cs.source()), d.key, counted)
		return
	}
	r.refusedTry(cs, v, burned)
}

// refusedTry: a try of cs was refused (v), burned or not.
func (r *recorder) refusedTry(cs *callState, v verdict, burned bool) {
	switch v {
	case rejectedKey:
		r.keyRejected(cs)
	case rejectedOutage:
		r.outage(cs)
	case rejected429:
		r.rejected(cs, burned)
	}
}
