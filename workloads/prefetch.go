package workloads

import "sync"

// Prefetched is a Source read ahead on a goroutine of its own: jobs come
// over in blocks, so that making them (parsing a trace: ~2 µs a job) runs
// beside the simulation that consumes them instead of inside it. The jobs,
// their order and the stream's error are the source's. Close stops the
// reading; a consumer that stops before the end of the stream calls it.
type Prefetched struct {
	full  chan []Job // blocks read, in order; closed when the reader stops
	empty chan []Job // blocks handed back for reuse
	// drained wakes a reader that found full at capacity once the
	// consumer has taken it down to prefetchLow blocks, so that the
	// reader reads several blocks a wake-up rather than one (a wake-up
	// costs the two threads more than reading a block).
	drained chan struct{}
	stop    chan struct{}
	done    chan struct{} // closed when the reader has stopped
	once    sync.Once

	cur   []Job
	i     int
	ended bool  // full was seen closed: err may be read
	err   error // the source's, set before full is closed
}

const (
	prefetchBlock = 512 // jobs a block
	prefetchDepth = 4   // blocks read ahead
	prefetchLow   = 1   // blocks still read ahead when a waiting reader is woken
)

// A filler is a Source that appends its next jobs to a block itself,
// up to the block's capacity (the jobs Next would return, without a copy
// of each on the way); ended is true when the stream ended first.
type filler interface {
	fill(b []Job) (_ []Job, ended bool)
}

// Prefetch starts reading src ahead. Nothing else may read src after.
func Prefetch(src Source) *Prefetched {
	p := &Prefetched{
		full:    make(chan []Job, prefetchDepth),
		empty:   make(chan []Job, prefetchDepth+2),
		drained: make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go p.read(src)
	return p
}

// read fills blocks from src until the stream ends or Close is called.
func (p *Prefetched) read(src Source) {
	defer close(p.done)
	defer close(p.full)
	for {
		var b []Job
		select {
		case b = <-p.empty:
			b = b[:0]
		default:
			b = make([]Job, 0, prefetchBlock)
		}
		ended := false
		if f, ok := src.(filler); ok {
			if b, ended = f.fill(b); ended {
				p.err = src.Err()
			}
		} else {
			for len(b) < prefetchBlock {
				j, ok := src.Next()
				if !ok {
					p.err, ended = src.Err(), true
					break
				}
				b = append(b, j)
			}
		}
		if len(b) > 0 {
			if len(p.full) == cap(p.full) {
				select {
				case <-p.drained: // a stale signal only leaves the send below to wait
				case <-p.stop:
					return
				}
			}
			select {
			case p.full <- b:
			case <-p.stop:
				return
			}
		}
		if ended {
			return
		}
	}
}

// Next returns the next job of the source.
func (p *Prefetched) Next() (Job, bool) {
	if p.i < len(p.cur) {
		p.i++
		return p.cur[p.i-1], true
	}
	return p.nextBlock()
}

// NextTo is Next into *dst, copied once from the block (a Job is 112
// bytes; the world reads one per arrival); false, dst untouched, at the
// end of the stream.
func (p *Prefetched) NextTo(dst *Job) bool {
	if p.i < len(p.cur) {
		*dst = p.cur[p.i]
		p.i++
		return true
	}
	j, ok := p.nextBlock()
	if ok {
		*dst = j
	}
	return ok
}

// nextBlock hands the block read back and returns the first job of the next.
func (p *Prefetched) nextBlock() (Job, bool) {
	if p.cur != nil {
		select {
		case p.empty <- p.cur: // the jobs were copied out: the block can be refilled
		default:
		}
		p.cur, p.i = nil, 0
	}
	b, ok := <-p.full
	if !ok {
		p.ended = true
		return Job{}, false
	}
	p.cur, p.i = b, 1
	if len(p.full) == prefetchLow {
		select {
		case p.drained <- struct{}{}:
		default:
		}
	}
	return b[0], true
}

// Err is the error that ended the source's stream, once Next has reported
// its end (nil before).
func (p *Prefetched) Err() error {
	if !p.ended {
		return nil
	}
	return p.err
}

// Close stops the reader and waits for it; the source is not read after.
func (p *Prefetched) Close() error {
	p.once.Do(func() { close(p.stop) })
	<-p.done
	return nil
}
