package report

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalsched/lab/results"
)

// WriteReport reads the output directory dir and writes into it
// report.html (self-contained: figures inlined as data: URIs, no external
// reference of any kind), report.md (figures as relative PNG paths, for
// design documents) and the figures themselves into dir/figures/, which the
// report owns: files there that this report did not write are removed, so a
// re-run never shows a previous scenario's figures. version names the tool
// that wrote the report.
func WriteReport(dir string, version string) error {
	// A folder the report could not be swapped into is refused before it is
	// read; then it is read where the user pointed, before anything is
	// staged: a missing or broken output is reported at its own path and
	// leaves nothing behind.
	if err := results.CheckOutDir(dir); err != nil {
		return err
	}
	o, err := results.LoadOutputs(dir)
	if err != nil {
		return err
	}
	stage, err := results.StageDir(dir)
	if err != nil {
		return err
	}
	if err := stage.LinkFrom(dir, "summary.json", "series.csv", "batches.csv", results.HeadlineFile); err != nil {
		stage.Abort()
		return err
	}
	o.Dir = stage.Dir // the report and its figures are written there
	if err := writeReportOf(&input{Outputs: o}, dir, version); err != nil {
		stage.Abort()
		return err
	}
	return stage.Commit()
}

// WriteReportStaged writes the report of the outputs in a staging
// directory into it, naming shown (the directory it will become): run and
// compare --report write the run and its report as one directory, swapped
// in together, so a command stopped between them leaves the previous run
// and its report.
func WriteReportStaged(stage *results.StagedDir, shown, version string) error {
	o, err := results.LoadOutputs(stage.Dir)
	if err != nil {
		return err
	}
	return writeReportOf(&input{Outputs: o}, shown, version)
}

// writeReportOf writes the report of o into o.Dir, naming the directory
// shown in the report.
func writeReportOf(o *input, shown, version string) error {
	dir := o.Dir
	o.Shown = shown
	figDir := filepath.Join(dir, "figures")
	figs, err := writeFigures(o, figDir, true) // the report reads no row after the figures (hotLanes keeps its answer)
	if err != nil {
		return err
	}
	if err := removeStaleFigures(figDir, figs); err != nil {
		return err
	}
	rep := buildReport(o, figs, version)
	html, err := rep.html()
	if err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, "report.html"), html); err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, "report.md"), rep.markdown())
}

// removeStaleFigures deletes the regular files in figDir that are not one of
// figs' PNG or SVG files.
func removeStaleFigures(figDir string, figs []Figure) error {
	keep := map[string]bool{}
	for _, f := range figs {
		keep[filepath.Base(f.PNG)], keep[filepath.Base(f.SVG)] = true, true
	}
	entries, err := os.ReadDir(figDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && !keep[e.Name()] {
			if err := os.Remove(filepath.Join(figDir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// table is a report table: a header row, body rows and an optional
// emphasised last row (a total). The first Key columns are the ones a
// reader needs (the rest scroll).
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
	Verdict  verdict
	Tables   []table
	Figures  []reportFigure
	Problems []string
}

func buildReport(o *input, figs []Figure, version string) *report {
	s := o.Summary
	r := &report{Title: "evalsched report: " + orDash(s.Scenario), Facts: reportFacts(o, version), Verdict: buildVerdict(o)}
	// The table a scenario exists for comes first: the remedies of an
	// incident, then production traffic when there is any.
	remedy := remedyTable(s)
	if len(remedy.Rows) > 0 {
		r.Tables = append(r.Tables, remedy)
	}
	hasProduction := false
	for _, run := range s.Runs {
		hasProduction = hasProduction || len(run.Production) > 0
	}
	if hasProduction {
		r.Tables = append(r.Tables, productionTable(s))
	}
	r.Tables = append(r.Tables, runsTable(s))
	if old, new := runsOf(s); old != nil {
		r.Tables = append(r.Tables, comparisonTable(s, *old, *new))
		if old.Total.Bill != nil {
			r.Tables = append(r.Tables, billTable(s, *old, *new))
		}
	} else if new != nil {
		r.Tables = append(r.Tables, laneTable(*new))
	}
	if t := batchTable(s); len(t.Rows) > 0 {
		r.Tables = append(r.Tables, t)
	}
	if t, ok := seedsTable(s); ok {
		r.Tables = append(r.Tables, t)
	}
	if !hasProduction {
		r.Tables = append(r.Tables, productionTable(s))
	}
	r.Tables = append(r.Tables, fairnessTable(s))
	if t := controllerTable(s); len(t.Rows) > 0 {
		r.Tables = append(r.Tables, t)
	}
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

// reportFacts are the scenario, seed, versions, window and the command that
// reproduces the outputs.
func reportFacts(o *input, version string) [][2]string {
	s := o.Summary
	facts := [][2]string{
		{"scenario", orDash(s.Scenario)},
		{"seed", seedsFact(s)},
		{"tool version", orDash(version)},
		{"summary schema", fmt.Sprintf("%s v%d", orDash(s.Schema), s.SchemaVersion)},
		{"output directory", o.ShownDir()},
	}
	var pols []string
	for i := range s.Runs {
		pols = append(pols, roleName(s, i))
	}
	facts = append(facts, [2]string{"runs", orDash(strings.Join(pols, ", "))})
	if len(s.Runs) > 0 {
		w := s.Runs[0].Window
		facts = append(facts, [2]string{"measurement window", fmt.Sprintf("%s – %s (%.0f–%.0f s)", formatClock(w[0]), formatClock(w[1]), w[0], w[1])})
	}
	if cmd := ReproduceCommand(s); cmd != "" {
		facts = append(facts, [2]string{"reproduce", cmd})
	}
	return facts
}

func seedsFact(s results.Summary) string {
	if len(s.Seeds) > 1 {
		return fmt.Sprintf("%d (runs and tables); multiplier over seeds %d–%d", s.Seed, s.Seeds[0], s.Seeds[len(s.Seeds)-1])
	}
	return fmt.Sprint(s.Seed)
}

// ReproduceCommand is the sim command line that writes the same
// summary.json as s (into ./out): the scenario as it was given and every
// flag that changed the result, from s.Invocation. Outputs without an
// invocation (older ones) get the scenario name, which works for embedded
// scenarios; "" when not even the command is known.
func ReproduceCommand(s results.Summary) string {
	inv := s.Invocation
	if inv == nil {
		inv = &results.Invocation{Scenario: s.Scenario}
		switch len(s.Runs) {
		case 1:
			inv.Command, inv.Policy = "run", s.Runs[0].Policy
		case 2:
			inv.Command, inv.Seeds = "compare", len(s.Seeds)
		default:
			return ""
		}
	}
	args := []string{"sim", inv.Command, "--scenario", inv.Scenario}
	if inv.Command == "run" && inv.Policy != "" {
		args = append(args, "--policy", inv.Policy)
	}
	args = append(args, "--seed", fmt.Sprint(s.Seed))
	if inv.Seeds > 1 {
		args = append(args, "--seeds", fmt.Sprint(inv.Seeds))
	}
	for _, v := range inv.Variants {
		args = append(args, "--variant", v)
	}
	for _, p := range inv.Policies {
		args = append(args, "--policy", p)
	}
	if inv.Trace != "" {
		args = append(args, "--trace", inv.Trace)
		if inv.SkipInvalid {
			args = append(args, "--skip-invalid")
		}
	}
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " ")
}

// shellQuote quotes a for a POSIX shell when it needs it.
func shellQuote(a string) string {
	if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@") == "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
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
