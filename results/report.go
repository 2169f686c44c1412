package results

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// WriteReport reads the output directory dir and writes into it
// report.html (self-contained: figures inlined as data: URIs, no external
// reference of any kind), report.md (figures as relative PNG paths, for
// design documents) and the figures themselves into dir/figures/. version
// names the tool that wrote the report.
func WriteReport(dir string, version string) error {
	o, err := LoadOutputs(dir)
	if err != nil {
		return err
	}
	figs, err := WriteFiguresFrom(o, filepath.Join(dir, "figures"))
	if err != nil {
		return err
	}
	rep := buildReport(o, figs, version)
	html, err := rep.html()
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, "report.html"), html); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, "report.md"), rep.markdown())
}

// table is a report table: a header row, body rows and an optional
// emphasised last row (a total).
type table struct {
	Title string
	Note  string
	Head  []string
	Rows  [][]string
	Total []string
}

type reportFigure struct {
	Figure
	Rel string        // PNG path relative to the report
	Img template.HTML // an img element with the PNG inlined as a data: URI
}

type report struct {
	Title    string
	Facts    [][2]string
	Tables   []table
	Figures  []reportFigure
	Problems []string
}

func buildReport(o *Outputs, figs []Figure, version string) *report {
	s := o.Summary
	r := &report{Title: "evalsched report: " + orDash(s.Scenario)}
	r.Facts = append(r.Facts,
		[2]string{"scenario", orDash(s.Scenario)},
		[2]string{"seed", fmt.Sprint(s.Seed)},
		[2]string{"tool version", orDash(version)},
		[2]string{"summary schema", fmt.Sprintf("%s v%d", orDash(s.Schema), s.SchemaVersion)},
		[2]string{"output directory", o.Dir},
	)
	var pols []string
	for i := range s.Runs {
		pols = append(pols, roleName(s, i))
	}
	r.Facts = append(r.Facts, [2]string{"runs", orDash(strings.Join(pols, ", "))})
	if len(s.Runs) > 0 {
		w := s.Runs[0].Window
		r.Facts = append(r.Facts, [2]string{"measurement window", fmt.Sprintf("%s – %s (%.0f–%.0f s)", formatClock(w[0]), formatClock(w[1]), w[0], w[1])})
	}
	if len(s.Runs) == 2 {
		r.Facts = append(r.Facts, [2]string{"reproduce", fmt.Sprintf("sim compare --scenario %s --seed %d", orDash(s.Scenario), s.Seed)})
	} else if len(s.Runs) == 1 {
		r.Facts = append(r.Facts, [2]string{"reproduce", fmt.Sprintf("sim run --scenario %s --policy %s --seed %d", orDash(s.Scenario), s.Runs[0].Policy, s.Seed)})
	}
	r.Tables = append(r.Tables, runsTable(s))
	if old, new := runsOf(s); old != nil {
		r.Tables = append(r.Tables, comparisonTable(s, *old, *new))
	} else if new != nil {
		r.Tables = append(r.Tables, laneTable(*new))
	}
	r.Tables = append(r.Tables, fairnessTable(s))
	r.Tables = append(r.Tables, convergenceTables(s)...)
	for _, f := range figs {
		rf := reportFigure{Figure: f, Rel: filepath.ToSlash(relTo(o.Dir, f.PNG))}
		data, err := os.ReadFile(f.PNG)
		if err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("figure %s: %v", f.Name, err))
			continue
		}
		// Built by hand: the template would escape the base64 "+" as "&#43;".
		rf.Img = template.HTML(`<img src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(data) +
			`" alt="` + template.HTMLEscapeString(f.Title) + `">`)
		r.Figures = append(r.Figures, rf)
	}
	return r
}

func relTo(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil {
		return rel
	}
	return path
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func f0(v float64) string  { return fmt.Sprintf("%.0f", fin(v)) }
func f1(v float64) string  { return fmt.Sprintf("%.1f", fin(v)) }
func f2(v float64) string  { return fmt.Sprintf("%.2f", fin(v)) }
func pct(v float64) string { return fmt.Sprintf("%.0f%%", 100*fin(v)) }

func runsTable(s Summary) table {
	t := table{Title: "Runs", Note: "Whole-run job counts; everything else over the measurement window, all lanes.",
		Head: []string{"policy", "window s", "events", "jobs arrived", "jobs completed", "completed in window", "jobs/h",
			"p50 job s", "p90 job s", "p99 job s", "wait share", "p90 wait share", "container-h", "gateway-only ctr-h", "container cost",
			"429s", "outage errors", "failed calls"}}
	for i, r := range s.Runs {
		l := r.Total
		t.Rows = append(t.Rows, []string{roleName(s, i), f0(r.Window[0]) + "–" + f0(r.Window[1]), fmt.Sprint(r.Events),
			fmt.Sprint(r.JobsArrived), fmt.Sprint(r.JobsCompleted), fmt.Sprint(l.Completed), f1(l.ThroughputPerHour),
			f0(l.JobTime.Total.P50), f0(l.JobTime.Total.P90), f0(l.JobTime.Total.P99), pct(l.WaitShare), pct(l.P90WaitShare),
			f1(l.ContainerSeconds / 3600), f1(l.GatewayWaitContainerSeconds / 3600), f2(l.ContainerCost),
			fmt.Sprint(l.Rejected429), fmt.Sprint(l.Errors), fmt.Sprint(l.FailedCalls)})
	}
	if len(t.Rows) == 0 {
		t.Note = "summary.json has no run."
	}
	return t
}

func comparisonTable(s Summary, old, new Run) table {
	rows := comparisonRows(s)
	t := table{Title: "Per-lane comparison",
		Note: fmt.Sprintf("old = %s, new = %s, on the identical job stream; every lane with any job, busiest (new) first; "+
			"multiplier = new ÷ old throughput (- where the baseline completed nothing).", old.Policy, new.Policy),
		Head: []string{"model", "old jobs/h", "new jobs/h", "multiplier", "old p90 s", "new p90 s", "old p90 wait share",
			"new p90 wait share", "old gateway-only ctr-h", "new gateway-only ctr-h"}}
	line := func(c LaneComparison) []string {
		m := "-"
		if c.Multiplier != nil {
			m = fmt.Sprintf("%.2f×", fin(*c.Multiplier))
		}
		return []string{c.Model, f1(c.OldPerHour), f1(c.NewPerHour), m, f0(c.OldP90), f0(c.NewP90), pct(c.OldWaitShare),
			pct(c.NewWaitShare), f2(c.OldGatewayCtrH), f2(c.NewGatewayCtrH)}
	}
	for _, c := range rows {
		t.Rows = append(t.Rows, line(c))
	}
	total := Compare(Run{Lanes: []Lane{old.Total}}, Run{Lanes: []Lane{new.Total}})
	if len(total) > 0 {
		t.Total = line(total[0])
		t.Total[0] = "(all)"
	}
	return t
}

func laneTable(run Run) table {
	t := table{Title: "Lanes: " + run.Policy, Note: "Every lane with any job, busiest first; measurement window.",
		Head: []string{"model", "completed", "jobs/h", "p50 s", "p90 s", "wait share", "p90 wait share", "mean running",
			"gateway-only ctr-h", "429s"}}
	lanes := append([]Lane(nil), run.Lanes...)
	sort.SliceStable(lanes, func(i, j int) bool { return lanes[i].ThroughputPerHour > lanes[j].ThroughputPerHour })
	line := func(l Lane) []string {
		return []string{l.Model, fmt.Sprint(l.Completed), f1(l.ThroughputPerHour), f0(l.JobTime.Total.P50), f0(l.JobTime.Total.P90),
			pct(l.WaitShare), pct(l.P90WaitShare), f1(l.MeanRunning), f2(l.GatewayWaitContainerSeconds / 3600), fmt.Sprint(l.Rejected429)}
	}
	for _, l := range lanes {
		t.Rows = append(t.Rows, line(l))
	}
	t.Total = line(run.Total)
	t.Total[0] = "(all)"
	return t
}

func fairnessTable(s Summary) table {
	t := table{Title: "Fairness",
		Note: "Jain's index: mean over windows with at least two backlogged projects. Small batches: at most 50 jobs, arrived " +
			"in the window; behind large: a large batch of the same model had jobs waiting when it arrived. Makespans of finished batches.",
		Head: []string{"policy", "Jain mean", "windows", "small batches", "unfinished", "small makespan p50 s", "small makespan p90 s",
			"behind large", "behind-large makespan p50 s", "behind-large makespan p90 s", "tier shares"}}
	for i, r := range s.Runs {
		f := r.Fairness
		t.Rows = append(t.Rows, []string{roleName(s, i), f2(f.JainMean), fmt.Sprint(len(f.Windows)), fmt.Sprint(f.SmallBatches),
			fmt.Sprint(f.SmallUnfinished), f0(f.SmallMakespan.P50), f0(f.SmallMakespan.P90), fmt.Sprint(f.BehindLarge),
			f0(f.BehindLargeMakespan.P50), f0(f.BehindLargeMakespan.P90), FormatTierShares(f.TierShares)})
	}
	return t
}

func convergenceTables(s Summary) []table {
	var out []table
	for i, r := range s.Runs {
		t := table{Title: "Convergence: " + roleName(s, i),
			Note: "Per model whose running-job limit moved, after each disturbance up to the next: the settled limit (median of the " +
				"segment's last quarter), the time until the limit stays within ±max(10%, 2) of it (-1: never), the overshoot past it " +
				"(fraction of settled) and half the peak-to-peak range once in band.",
			Head: []string{"model", "disturbance", "at", "settled limit", "time to band s", "overshoot", "oscillation"}}
		for _, c := range r.Convergence {
			t.Rows = append(t.Rows, []string{c.Model, c.Disturbance.Label(), formatClock(c.Disturbance.Seconds()), f0(c.Settled), f0(c.TimeToBand),
				pct(c.Overshoot), f1(c.Oscillation)})
		}
		if len(t.Rows) == 0 {
			t.Note = "No model's limit moved in this run (a fixed-lane run keeps fixed caps)."
		}
		out = append(out, t)
	}
	return out
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{"slug": slug}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2rem auto; max-width: 1200px; padding: 0 1rem; color: #222; line-height: 1.4; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0 1rem; }
th, td { border: 1px solid #ddd; padding: .2rem .45rem; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; position: sticky; top: 0; }
td:first-child, th:first-child { text-align: left; }
tr.total td { font-weight: bold; background: #fafafa; }
.facts td { text-align: left; } .facts td:first-child { color: #555; }
.scroll { max-height: 32rem; overflow: auto; display: inline-block; max-width: 100%; }
.note { color: #555; font-size: .85rem; max-width: 60rem; }
figure { margin: 1.5rem 0 2.5rem; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: .9rem; color: #333; max-width: 70rem; }
.problem { color: #a00; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<table class="facts">
{{range .Facts}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table>
{{range .Problems}}<p class="problem">{{.}}</p>
{{end}}
<nav><p>{{range .Tables}}<a href="#{{slug .Title}}">{{.Title}}</a> · {{end}}<a href="#figures">Figures</a></p></nav>
{{range .Tables}}
<h2 id="{{slug .Title}}">{{.Title}}</h2>
{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
{{if or .Rows .Total}}<div class="scroll"><table>
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}{{if .Total}}<tr class="total">{{range .Total}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>{{end}}
{{end}}
<h2 id="figures">Figures</h2>
{{range .Figures}}
<figure id="fig-{{.Name}}">
{{.Img}}
<figcaption><b>{{.Title}}.</b> {{.Caption}}</figcaption>
</figure>
{{end}}
</body>
</html>
`))

func (r *report) html() ([]byte, error) {
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (r *report) markdown() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdEscape(r.Title))
	for _, f := range r.Facts {
		fmt.Fprintf(&b, "- **%s**: %s\n", f[0], mdEscape(f[1]))
	}
	b.WriteString("\n")
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "> %s\n\n", mdEscape(p))
	}
	for _, t := range r.Tables {
		fmt.Fprintf(&b, "## %s\n\n", mdEscape(t.Title))
		if t.Note != "" {
			fmt.Fprintf(&b, "%s\n\n", mdEscape(t.Note))
		}
		if len(t.Rows) == 0 && t.Total == nil {
			continue
		}
		mdRow(&b, t.Head)
		sep := make([]string, len(t.Head))
		for i := range sep {
			sep[i] = "---:"
			if i == 0 {
				sep[i] = ":---"
			}
		}
		b.WriteString("|" + strings.Join(sep, "|") + "|\n")
		for _, row := range t.Rows {
			mdRow(&b, row)
		}
		if t.Total != nil {
			bold := make([]string, len(t.Total))
			for i, c := range t.Total {
				bold[i] = "**" + c + "**"
			}
			mdRow(&b, bold)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Figures\n\n")
	for _, f := range r.Figures {
		fmt.Fprintf(&b, "### %s\n\n![%s](%s)\n\n%s\n\n", mdEscape(f.Title), mdEscape(f.Title), f.Rel, mdEscape(f.Caption))
	}
	return []byte(b.String())
}

func mdRow(b *strings.Builder, cells []string) {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = mdEscape(c)
	}
	b.WriteString("| " + strings.Join(esc, " | ") + " |\n")
}

// mdEscape keeps a cell or a line from breaking a Markdown table or turning
// into markup.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;").Replace(s)
}

// slug is an HTML id made of s: lower case letters, digits and dashes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
