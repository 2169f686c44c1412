package cli

import (
	"fmt"
	"io"
	"sync"

	"github.com/evalsched/lab/scenario"
)

// warned holds the warnings already said in this process: a sweep's points
// share their scenario's, said once.
var warned struct {
	sync.Mutex
	seen map[string]bool
}

// warnScenario says on stderr, once each, the settings sc sets that its
// controller does not read (scenario.Warnings).
func warnScenario(w io.Writer, sc *scenario.Scenario) { warn(w, sc.Warnings()) }

// warn says each message on stderr, once in the process.
func warn(w io.Writer, msgs []string) {
	warned.Lock()
	defer warned.Unlock()
	if warned.seen == nil {
		warned.seen = map[string]bool{}
	}
	for _, msg := range msgs {
		if !warned.seen[msg] {
			warned.seen[msg] = true
			fmt.Fprintf(w, "warning: %s\n", msg)
		}
	}
}

// warnOf is warn on w, for lab.RunPoints.
func warnOf(w io.Writer) func([]string) {
	return func(msgs []string) { warn(w, msgs) }
}
