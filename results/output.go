package results

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// SeriesCSVHeader is the base header of series.csv (the columns every reader needs).
const SeriesCSVHeader = "policy,t_s,model,running,limit,gateway_depth,provider_inflight,waiting"

// SeriesCSVQuotaColumns follow the base columns in series.csv: 429s since the
// previous sample, the fullest quota window's share of its limit, and the
// evaluation calls waiting out a backoff at the gateway.
const SeriesCSVQuotaColumns = "rejected_429,quota_use,gateway_backoff"

// BatchesCSVHeader is the header of batches.csv: progress of tracked batches.
const BatchesCSVHeader = "policy,t_s,batch,model,class,jobs,started,done"

// WriteRunTable prints the per-lane table of one run: the top lanes by
// throughput (all when top <= 0) and the total.
func WriteRunTable(out io.Writer, run Run, top int) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "model\tcompleted\tjobs/h\tp50 s\tp90 s\twait share\tp90 wait share\tgateway-only ctr-h\t429s\t\n")
	lanes := append([]Lane(nil), run.Lanes...)
	slices.SortStableFunc(lanes, func(a, b Lane) int { return cmp.Compare(b.ThroughputPerHour, a.ThroughputPerHour) })
	shown := lanes
	if top > 0 && len(lanes) > top {
		shown = lanes[:top]
	}
	row := func(l Lane) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.0f\t%.0f%%\t%.0f%%\t%.1f\t%d\t\n", l.Model, l.Completed, l.ThroughputPerHour,
			l.JobTime.Total.P50, l.JobTime.Total.P90, 100*l.WaitShare, 100*l.P90WaitShare, l.GatewayWaitContainerSeconds/3600, l.Rejected429)
	}
	for _, l := range shown {
		row(l)
	}
	if rest := len(lanes) - len(shown); rest > 0 {
		fmt.Fprintf(tw, "(%d more lanes)\t\t\t\t\t\t\t\t\t\n", rest)
	}
	row(run.Total)
	return tw.Flush()
}
