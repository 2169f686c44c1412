package cli

import (
	"io"
	"os"

	"github.com/evalsched/lab/lab"
	"github.com/urfave/cli/v2"
)

// writeGateCI writes the verdict for CI: --junit and --markdown files, and
// under GitHub Actions (GITHUB_STEP_SUMMARY set) the Markdown table
// appended to the step summary and an ::error:: annotation per failed row
// on stderr.
func writeGateCI(c *cli.Context, v lab.GateVerdict) error {
	if err := writeOutput(c, c.String("junit"), func(w io.Writer) error { return lab.WriteJUnit(w, v) }); err != nil {
		return err
	}
	if err := writeOutput(c, c.String("markdown"), func(w io.Writer) error { return lab.WriteGateMarkdown(w, v) }); err != nil {
		return err
	}
	if summary := os.Getenv("GITHUB_STEP_SUMMARY"); summary != "" {
		f, err := os.OpenFile(summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		if err := lab.WriteGateMarkdown(f, v); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		return lab.WriteGitHubAnnotations(c.App.ErrWriter, v)
	}
	return nil
}

// writeOutput writes to the file named by a flag ("-" is stdout, "" none).
func writeOutput(c *cli.Context, path string, write func(io.Writer) error) error {
	switch path {
	case "":
		return nil
	case "-":
		return write(c.App.Writer)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
