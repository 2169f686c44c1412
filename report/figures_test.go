package report_test

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/report"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/sim/simtest"
)

// checkFigures checks every figure's files: non-empty, a PNG that decodes,
// an SVG that parses with an svg root element.
func checkFigures(t *testing.T, figs []report.Figure) {
	t.Helper()
	if len(figs) == 0 {
		t.Fatal("no figure")
	}
	seen := map[string]bool{}
	for _, f := range figs {
		if seen[f.Name] {
			t.Errorf("figure %s twice", f.Name)
		}
		seen[f.Name] = true
		if f.Title == "" || f.Caption == "" {
			t.Errorf("figure %s: empty title or caption", f.Name)
		}
		data, err := os.ReadFile(f.PNG)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", f.PNG, err)
		} else if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
			t.Errorf("%s: %v is too small", f.PNG, b)
		}
		svg, err := os.ReadFile(f.SVG)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSVG(svg); err != nil {
			t.Errorf("%s: %v", f.SVG, err)
		}
	}
}

func checkSVG(data []byte) error {
	if len(data) == 0 {
		return io.ErrUnexpectedEOF
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		return &xml.SyntaxError{Msg: "root element is " + root + ", not svg"}
	}
	return nil
}

func names(figs []report.Figure) []string {
	var out []string
	for _, f := range figs {
		out = append(out, f.Name)
	}
	return out
}

func TestWriteFiguresCompare(t *testing.T) {
	dir, _ := simtest.Outputs(t)
	out := t.TempDir()
	figs, err := report.WriteFigures(dir, out)
	if err != nil {
		t.Fatal(err)
	}
	checkFigures(t, figs)
	got := strings.Join(names(figs), " ")
	for _, want := range []string{"throughput", "job-time-split", "timeline-", "batch-progress", "tier-shares", "fairness-jain"} {
		if !strings.Contains(got, want) {
			t.Errorf("no figure %q in %s", want, got)
		}
	}
	timelines := strings.Count(got, "timeline-")
	if timelines < 1 || timelines > report.FigureHotLanes {
		t.Errorf("%d timeline figures, want 1..%d", timelines, report.FigureHotLanes)
	}
	for _, f := range figs {
		if strings.HasPrefix(f.Caption, "Not drawn") && f.Name != "batch-progress" {
			t.Errorf("figure %s of a real comparison is a placeholder: %s", f.Name, f.Caption)
		}
	}
	// The busiest lane under the scheduler has a timeline.
	o, err := results.LoadOutputs(dir)
	if err != nil {
		t.Fatal(err)
	}
	busiest := ""
	best := -1.0
	for _, l := range o.Summary.Runs[1].Lanes {
		if l.MeanRunning > best {
			busiest, best = l.Model, l.MeanRunning
		}
	}
	if !strings.Contains(got, "timeline-"+busiest) {
		t.Errorf("no timeline of the busiest lane %s in %s", busiest, got)
	}
}

func TestWriteFiguresSingleRun(t *testing.T) {
	_, dir := simtest.Outputs(t)
	figs, err := report.WriteFigures(dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkFigures(t, figs)
	if figs[0].Name != "throughput" || strings.Contains(figs[0].Caption, "Not drawn") {
		t.Errorf("single run: first figure %s: %s", figs[0].Name, figs[0].Caption)
	}
}

// degenerate outputs: none may panic, and each still gives every figure
// file and a report.
func degenerateCases() map[string]func(t *testing.T, dir string) {
	lane := func(model string, completed int64) results.Lane {
		return results.Lane{Model: model, Arrived: 10, Started: completed, Completed: completed, ThroughputPerHour: float64(completed)}
	}
	run := func(policy string, w0, w1 float64, lanes ...results.Lane) results.Run {
		r := results.Run{Policy: policy, Window: [2]float64{w0, w1}, Lanes: lanes}
		for _, l := range lanes {
			r.Total.Completed += l.Completed
			r.Total.ThroughputPerHour += l.ThroughputPerHour
			r.Total.Rejected429 += l.Rejected429
		}
		return r
	}
	return map[string]func(t *testing.T, dir string){
		// A summary without runs, and rows holding NaN or Inf, are refused
		// when the folder is read (results.TestLoadOutputsRefuses).
		"empty lanes": func(t *testing.T, dir string) {
			s := results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion, Scenario: "x",
				Runs: []results.Run{run("fixed-lane", 0, 3600), run("scheduler", 0, 3600)}, Comparison: []results.LaneComparison{}}
			simtest.WriteSummary(t, dir, s)
			simtest.WriteFile(t, dir, "series.csv", results.SeriesCSVColumns+"\n")
			simtest.WriteFile(t, dir, "batches.csv", results.BatchesCSVHeader+"\n")
		},
		"zero-length window": func(t *testing.T, dir string) {
			s := results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion,
				Runs: []results.Run{run("fixed-lane", 0, 0, lane("m", 0)), run("scheduler", 0, 0, lane("m", 0))}}
			s.Comparison = results.Compare(s.Runs[0], s.Runs[1])
			simtest.WriteSummary(t, dir, s)
			simtest.WriteFile(t, dir, "series.csv", results.SeriesCSVHeader+","+results.SeriesCSVCacheColumns+"\nfixed-lane,0,m,0,-1,0,0,0,0,0,0\nscheduler,0,m,0,0,0,0,0,0,0,0\n")
			simtest.WriteFile(t, dir, "batches.csv", results.BatchesCSVHeader+"\nscheduler,0,b1,m,large,0,0,0\n")
		},
		"lane with no completions": func(t *testing.T, dir string) {
			a, b := lane("busy", 50), lane("stuck", 0)
			b.MeanRunning = 3
			s := results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion,
				Runs: []results.Run{run("fixed-lane", 300, 1800, lane("busy", 20), lane("stuck", 0)), run("scheduler", 300, 1800, a, b)}}
			s.Comparison = results.Compare(s.Runs[0], s.Runs[1])
			s.Runs[1].Convergence = []results.ConvergenceRow{{Model: "stuck", Disturbance: results.Disturbance{Kind: "slowdown", At: 10 * time.Minute, Model: "stuck"}, Settled: 3, TimeToBand: -1}}
			s.Runs[1].Fairness.Windows = []results.FairnessWindow{{Start: 300, End: 900, Backlogged: 2, JainCrossLane: 0.5,
				Lanes: []results.LaneWindow{{Model: "stuck", Backlogged: 2, Admitted: 4, Jain: 0.5, JainTokens: 0.6}}, TierAdmitted: map[string]int64{"1": 0, "3": 0}},
				{Start: 900, End: 1500, Backlogged: 3, JainCrossLane: 1, TierAdmitted: map[string]int64{"2": 4}}}
			simtest.WriteSummary(t, dir, s)
			simtest.WriteFile(t, dir, "series.csv", results.SeriesCSVHeader+","+results.SeriesCSVCacheColumns+"\nscheduler,10,stuck,3,3,0,0,9,0,0,0\nscheduler,20,stuck,3,4,0,0,9,0,0,0\n")
			simtest.WriteFile(t, dir, "batches.csv", results.BatchesCSVHeader+"\nscheduler,10,b1,stuck,small_behind_large,5,0,0\n")
		},
		"single run without comparison": func(t *testing.T, dir string) {
			s := results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion, Runs: []results.Run{run("fixed-lane", 0, 600, lane("m", 3))}}
			simtest.WriteSummary(t, dir, s)
		},
		"429s with a time series": func(t *testing.T, dir string) {
			a, b := lane("a", 5), lane("b", 5)
			a.Rejected429, b.Rejected429 = 7, 0
			c := lane("a", 6)
			c.Rejected429 = 70
			s := results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion, Runs: []results.Run{run("fixed-lane", 0, 600, a, b), run("scheduler", 0, 600, c)}}
			simtest.WriteSummary(t, dir, s)
			simtest.WriteFile(t, dir, "series.csv", strings.Replace(results.SeriesCSVHeader, "waiting", "waiting,rejected_429", 1)+","+results.SeriesCSVCacheColumns+
				"\nfixed-lane,10,a,1,-1,0,0,0,3,0,0,0\nscheduler,10,a,1,5,0,0,0,30,0,0,0\nscheduler,20,a,1,5,0,0,0,0,0,0,0\n")
		},
	}
}

func TestWriteFiguresDegenerate(t *testing.T) {
	for name, setup := range degenerateCases() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			setup(t, dir)
			simtest.Seal(t, dir)
			figs, err := report.WriteFigures(dir, filepath.Join(dir, "figures"))
			if err != nil {
				t.Fatal(err)
			}
			checkFigures(t, figs)
			if name == "429s with a time series" {
				got := strings.Join(names(figs), " ")
				if !strings.Contains(got, "rejections-429 ") || !strings.Contains(got, "rejections-429-over-time") {
					t.Errorf("429 figures missing: %s", got)
				}
			}
		})
	}
}
