package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// cacheModel is a brute-force model of one job's prompt cache, rebuilt
// from the event log: every prefix a call wrote waits, apart, until its
// call's response begins (LogCacheReady); the readable entry is the
// longest prefix that has begun, last used at the latest accept that read
// it or wrote any prefix that has begun.
type cacheModel struct {
	prefix int32
	use    Time
	seen   bool
	// pending writes by call: prefix, write time, ready (-1 until logged).
	pending map[int64]*modelWrite
}

type modelWrite struct {
	in           int32
	wrote, ready Time
}

func newCacheModel() *cacheModel { return &cacheModel{pending: map[int64]*modelWrite{}} }

// at brings the model up to t: every write whose response began by t is
// readable.
func (m *cacheModel) at(t Time) {
	for c, p := range m.pending {
		if p.ready >= 0 && p.ready <= t {
			m.prefix = max(m.prefix, p.in)
			m.use = max(m.use, p.wrote)
			m.seen = true
			delete(m.pending, c)
		}
	}
}

// want is the read a try of in tokens at t must get, and the miss cause.
func (m *cacheModel) want(t, born Time, in int32, life Time) (read int32, miss uint8) {
	m.at(t)
	switch {
	case m.prefix > 0 && t-m.use <= life:
		return min(m.prefix, in), cacheNoMiss
	case m.prefix > 0 && born-m.use <= life:
		return 0, cacheMissGateway
	case m.prefix > 0:
		return 0, cacheMissTool
	}
	return 0, cacheNoMiss
}

// accepted records an accept at t of call c that read read of in.
func (m *cacheModel) accepted(t Time, c int64, in, read int32) {
	if read > 0 {
		m.use = t
	}
	if in > read {
		m.pending[c] = &modelWrite{in: in, wrote: t, ready: -1}
	}
}

// TestParallelCallsAllWrite is the example: a turn's two parallel
// calls sent at the same instant with a 5,000-token prompt both write it,
// since the entry exists only once the first response begins: over 50 such
// turns (each a fresh prompt) 500,000 tokens written and none read, where
// the old rule (a read at once) billed 250,000 written and 250,000 read.
// A later turn (after the first token) reads it.
func TestParallelCallsAllWrite(t *testing.T) {
	const turns, fanOut, prompt = 50, 2, 5000
	life, ttft := FromDuration(5*time.Minute), FromDuration(800*time.Millisecond)
	var written, read int64
	for turn := 0; turn < turns; turn++ {
		var c jobCache // a fresh prompt: a job of its own
		now := Time(turn) * Minute
		var writes []int32
		for k := 0; k < fanOut; k++ {
			r, w, _ := c.split(now, now, prompt, life, 1024)
			c.used(now, int64(k), prompt, r, w)
			read += int64(r)
			written += int64(w)
			writes = append(writes, w)
		}
		for k, w := range writes {
			if w > 0 {
				c.begun(int64(k), now+ttft)
			}
		}
		if r, _, _ := c.split(now+ttft-1, now+ttft-1, prompt+300, life, 1024); r != 0 {
			t.Fatalf("turn %d: a call a microsecond before the first token reads %d", turn, r)
		}
		if r, w, _ := c.split(now+ttft, now+ttft, prompt+300, life, 1024); r != prompt || w != 300 {
			t.Fatalf("turn %d: a call after the first token reads %d and writes %d, want %d and 300", turn, r, w, prompt)
		}
	}
	if written != 500_000 || read != 0 {
		t.Errorf("%d written, %d read; want 500000 and 0", written, read)
	}
	// Below the minimum cacheable length nothing is written or read.
	var c jobCache
	if r, w, _ := c.split(0, 0, 1023, life, 1024); r != 0 || w != 0 {
		t.Errorf("a 1,023-token prompt under a 1,024 minimum: read %d, write %d", r, w)
	}
}

// TestCacheAgainstBruteForce runs random tries of one job (parallel
// bursts, lulls past the lifetime, growing prompts, first tokens after a
// random delay or never) through jobCache and the brute-force cacheModel.
func TestCacheAgainstBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0xcace))
			life := Time(1+rng.Int64N(30)) * Second
			var c jobCache
			m := newCacheModel()
			now, in := Time(0), int32(1000+rng.Int64N(3000))
			type served struct {
				call  int64
				in    int32
				ready Time
			}
			var queue []served
			reads := 0
			for call := int64(0); call < 300; call++ {
				switch r := rng.IntN(10); {
				case r < 4: // parallel: same instant
				case r < 9:
					now += Time(rng.Int64N(int64(life)))
				default:
					now += life + Time(rng.Int64N(int64(life)))
				}
				if rng.IntN(3) == 0 {
					in += int32(rng.Int64N(2000))
				}
				// First tokens due by now.
				rest := queue[:0]
				for _, s := range queue {
					if s.ready <= now {
						c.begun(s.call, s.ready)
						m.pending[s.call].ready = s.ready
					} else {
						rest = append(rest, s)
					}
				}
				queue = rest
				born := now - Time(rng.Int64N(int64(life)))
				r, w, miss := c.split(now, born, in, life, 0)
				wantR, wantMiss := m.want(now, born, in, life)
				if r != wantR || w != in-wantR || miss != wantMiss {
					t.Fatalf("call %d at %v (in %d): read %d write %d miss %d; the model reads %d, miss %d", call, now, in, r, w, miss, wantR, wantMiss)
				}
				if r > 0 {
					reads++
				}
				c.used(now, call, in, r, w)
				m.accepted(now, call, in, r)
				if w > 0 && rng.IntN(8) > 0 { // served: its first token comes later
					queue = append(queue, served{call, in, now + Time(rng.Int64N(int64(2*Second)))})
				}
			}
			if reads == 0 {
				t.Fatal("no call read the cache")
			}
		})
	}
}
