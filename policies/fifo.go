package policies

import "github.com/evalsched/lab/internal/ring"

// fifo is the shared ring-buffer queue (amortised O(1), no per-item allocation).
type fifo[T any] = ring.Ring[T]
