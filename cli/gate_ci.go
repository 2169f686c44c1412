package cli

import (
	"io"
	"os"
	"path/filepath"

	"github.com/evalsched/lab/lab"
	"github.com/urfave/cli/v2"
)

// writeStepSummary, under GitHub Actions (GITHUB_STEP_SUMMARY set),
// appends the verdict's Markdown to the step summary and writes an
// ::error:: annotation per failed row (or one for no verdict) on stderr.
func writeStepSummary(c *cli.Context, v lab.GateVerdict) error {
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

// writeFileWith creates the file at path (and its folder) with write.
func writeFileWith(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
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
