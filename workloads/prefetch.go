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
	prev  []Job // the block before cur, handed back at the next switch
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
	if j := p.NextPtr(); j != nil {
		return *j, true
	}
	return Job{}, false
}

// NextPtr is Next without a copy: the next job where it lies in the block
// read, nil at the end of the stream. The job stays as it is until the
// call after the next one (to Next or NextPtr), so that a consumer can
// hold the job it is handling while it fetches the one to follow: a block
// is handed back for reuse only at the switch after the one that left it.
func (p *Prefetched) NextPtr() *Job {
	if p.i < len(p.cur) {
		p.i++
		return &p.cur[p.i-1]
	}
	return p.firstOfNext()
}

// firstOfNext is NextPtr at the end of a block: the next block's first
// job, nil at the end of the stream (apart and not inlined, so that
// NextPtr inlines).
//
//go:noinline
func (p *Prefetched) firstOfNext() *Job {
	if !p.nextBlock() {
		return nil
	}
	return &p.cur[0]
}

// nextBlock hands back the block before the one read (the jobs of the one
// read may still be held: NextPtr) and moves to the next, at its first
// job; false at the end of the stream.
func (p *Prefetched) nextBlock() bool {
	if p.prev != nil {
		select {
		case p.empty <- p.prev:
		default:
		}
	}
	p.prev, p.cur, p.i = p.cur, nil, 0
	b, ok := <-p.full
	if !ok {
		p.ended = true
		return false
	}
	p.cur, p.i = b, 1
	if len(p.full) == prefetchLow {
		select {
		case p.drained <- struct{}{}:
		default:
		}
	}
	return true
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
