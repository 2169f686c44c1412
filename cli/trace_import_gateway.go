package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads/gatewaylog"
)

// fromLiteLLM is --from's value for LiteLLM spend logs, read by
// workloads/gatewaylog rather than agentlog: they are a gateway's calls,
// not agent runs, and become a production request trace.
const fromLiteLLM = "litellm"

// gatewayImport is `sim trace import --from litellm`: spend logs into a
// gateway request trace; nothing is written when a row is bad, a model
// unknown or no call is left.
func gatewayImport(stdout io.Writer, scenarioRef string, mapping map[string]string, out string, paths []string) error {
	if err := results.CheckOutFile(out); err != nil { // before the logs are read
		return err
	}
	if err := refuseOutOverInput(out, paths); err != nil {
		return err
	}
	sc, err := scenario.LoadScenario(scenarioRef)
	if err != nil {
		return err
	}
	st, err := gatewaylog.Import(paths, gatewaylog.Options{Catalogue: sc.Catalogue(), Mapping: mapping,
		Skip: func(s string) { fmt.Fprintf(stdout, "skipped: %s\n", s) },
	}, func(write func(io.Writer) error) error { return results.WriteAtomic(out, write) })
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %d calls (%d models, %d teams, %d keys, over %v) from %d litellm spend-log rows to %s (a gateway request trace: production[] format: gateway); not replayed: %d cache hits, %d failures\n",
		st.Calls, st.Models, st.Teams, st.Keys, st.Span, st.Rows, out, st.CacheHits, st.Failures)
	return nil
}

// refuseOutOverInput refuses an --out that is one of the inputs: the
// import would replace the log it reads.
func refuseOutOverInput(out string, paths []string) error {
	fo, err := os.Stat(out)
	if err != nil {
		return nil
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && os.SameFile(fo, fi) {
			return fmt.Errorf("--out %s is the input %s: give another file", out, strings.TrimSpace(p))
		}
	}
	return nil
}
