package results

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"text/tabwriter"
)

// SeriesCSVHeader is the base header of series.csv (the columns every reader needs).
const SeriesCSVHeader = "policy,t_s,model,running,limit,gateway_depth,provider_inflight,waiting"

// SeriesCSVQuotaColumns follow the base columns in series.csv: 429s since the
// previous sample and the fullest quota window's share of its limit.
const SeriesCSVQuotaColumns = "rejected_429,quota_use"

// BatchesCSVHeader is the header of batches.csv: progress of tracked batches.
const BatchesCSVHeader = "policy,t_s,batch,model,class,jobs,started,done"

// AppendSeriesCSV appends one run's time series as CSV rows (no header).
func AppendSeriesCSV(buf *bytes.Buffer, policy string, models []string, rows []SeriesRow) {
	w := csv.NewWriter(buf)
	rec := make([]string, 10)
	for _, r := range rows {
		rec[0], rec[1], rec[2] = policy, strconv.FormatFloat(r.T, 'f', -1, 64), models[r.Model]
		for i, v := range []int32{r.Running, r.Limit, r.Depth, r.Inflight, r.Waiting, r.Rejected429} {
			rec[3+i] = strconv.FormatInt(int64(v), 10)
		}
		rec[9] = strconv.FormatFloat(float64(r.QuotaUse), 'f', 4, 32)
		w.Write(rec) // a bytes.Buffer does not fail; Flush reports nothing
	}
	w.Flush()
}

// AppendBatchesCSV appends one run's batch progress as CSV rows (no header).
func AppendBatchesCSV(buf *bytes.Buffer, policy string, rows []BatchProgressRow) {
	w := csv.NewWriter(buf)
	rec := make([]string, 8)
	for _, r := range rows {
		rec[0], rec[1], rec[2], rec[3], rec[4] = policy, strconv.FormatFloat(r.T, 'f', -1, 64), r.Batch, r.Model, r.Class
		for i, v := range []int32{r.Jobs, r.Started, r.Done} {
			rec[5+i] = strconv.FormatInt(int64(v), 10)
		}
		w.Write(rec)
	}
	w.Flush()
}

// WriteOutputs writes summary.json, series.csv and batches.csv into dir
// (created if missing), each atomically.
func WriteOutputs(dir string, s Summary, models []string, data []RunData) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString(SeriesCSVHeader + "," + SeriesCSVQuotaColumns + "\n")
	for _, d := range data {
		AppendSeriesCSV(&buf, d.Policy, models, d.Series)
	}
	if err := WriteFileAtomic(dir+"/series.csv", buf.Bytes()); err != nil {
		return err
	}
	buf.Reset()
	buf.WriteString(BatchesCSVHeader + "\n")
	for _, d := range data {
		AppendBatchesCSV(&buf, d.Policy, d.BatchProgress)
	}
	if err := WriteFileAtomic(dir+"/batches.csv", buf.Bytes()); err != nil {
		return err
	}
	return WriteJSON(dir+"/summary.json", s)
}

// WriteRunTable prints the per-lane table of one run: the top lanes by
// throughput (all when top <= 0) and the total.
func WriteRunTable(out io.Writer, run Run, top int) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "model\tcompleted\tjobs/h\tp50 s\tp90 s\twait share\tp90 wait share\tgateway-only ctr-h\t429s\t\n")
	lanes := append([]Lane(nil), run.Lanes...)
	sort.SliceStable(lanes, func(i, j int) bool { return lanes[i].ThroughputPerHour > lanes[j].ThroughputPerHour })
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
