package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/urfave/cli/v2"
)

// Exit codes: 0 ok, 1 an error (bad input, a failed run), 2 a usage error
// (an unknown flag, a bad flag value, an unexpected argument, an --out that
// cannot be written: results.OutDirError), and the
// verdicts and refusals below. The README's table lists them
// (TestExitCodesDocumented reads it against exitCodes).
const (
	exitError      = 1
	exitUsage      = 2
	exitRegression = 3 // gate: a regression, or a checked figure missing
	exitQuota      = 4 // quota-check: an evaluation passed its share of a daily quota
	exitStale      = 5 // gate: the baseline does not pin what the gate runs (no verdict); study --check: a study's file is not what it writes
	exitBusy       = 6 // --out is being written by another sim (its lock is held)
	exitInfeasible = 7 // tune: no setting evaluated met every constraint
	// exitSignal + N: stopped by signal N (SIGINT 130, SIGTERM 143).
	exitSignal = 128
)

// exitCodes names every exit code, for the README check.
var exitCodes = map[int]string{0: "ok", exitError: "error", exitUsage: "usage", exitRegression: "regression",
	exitQuota: "quota", exitStale: "stale baseline", exitBusy: "busy", exitInfeasible: "infeasible", exitSignal + 2: "SIGINT", exitSignal + 15: "SIGTERM"}

func asUsage(err error, ue **usageError) bool { return errors.As(err, ue) }

// exitCode is the exit code of a command's error.
func exitCode(err error) int {
	var (
		qe *quotaGateError
		gf *gateFailed
		sb *lab.StaleBaselineError
		be *results.BusyError
		ue *usageError
		ie *infeasibleError
		se *staleStudyError
		oe *results.OutDirError
	)
	switch {
	case err == nil:
		return 0
	case errors.As(err, &qe):
		return exitQuota
	case errors.As(err, &gf):
		return exitRegression
	case errors.As(err, &sb), errors.As(err, &se):
		return exitStale
	case errors.As(err, &be):
		return exitBusy
	case errors.As(err, &ie):
		return exitInfeasible
	case errors.As(err, &ue), errors.As(err, &oe):
		return exitUsage
	}
	return exitError
}

// usageError is a mistake in the command line; main prints the command's
// usage with it and exits 2. (It is not a cli.ExitCoder: the cli package
// would exit the process itself.)
type usageError struct {
	err   error
	usage string
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(c *cli.Context, format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...), usage: usageOf(c)}
}

func usageOf(c *cli.Context) string {
	if c != nil && c.Command != nil && c.Command.UsageText != "" {
		return c.Command.UsageText
	}
	return "sim COMMAND [flags] (sim --help lists the commands)"
}

// positional is how many arguments each command takes after its flags
// (-1: any number, checked by the command).
var positional = map[string]int{"completion": 1, "validate": 1, "stats": 1, "sweep": 1, "tune": 1, "gate": 1, "merge": -1, "study": -1}

// required is the flag each command cannot do without, and what it names
// (a usage error if missing, as a missing argument is; urfave/cli's own
// Required check printed the whole help and exited 1).
var required = map[string]struct{ flag, what string }{
	"quota-check": {"in", "the output directory of sim run or compare"},
	"gen":         {"out", "the trace file to write"},
}

// strict makes every command of app refuse what it would otherwise ignore:
// unexpected arguments (and flags after an argument, which the flag parser
// would take as arguments), negative --top, and bad flags, all as usage
// errors.
func strict(app *cli.App) {
	app.OnUsageError = func(c *cli.Context, err error, _ bool) error { return &usageError{err: err, usage: usageOf(c)} }
	app.Action = func(c *cli.Context) error {
		if c.NArg() > 0 {
			return usageErrorf(c, "unknown command %q", c.Args().First())
		}
		return cli.ShowAppHelp(c)
	}
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, cmd := range cmds {
			walk(cmd.Subcommands)
			cmd.OnUsageError = app.OnUsageError
			if cmd.Action == nil || len(cmd.Subcommands) > 0 {
				continue
			}
			action := cmd.Action
			cmd.Action = func(c *cli.Context) error {
				if err := checkArgs(c, positional[c.Command.Name]); err != nil {
					return err
				}
				return action(c)
			}
		}
	}
	walk(app.Commands)
}

// checkArgs refuses arguments beyond want, a missing required flag, a
// negative --top and an empty path.
func checkArgs(c *cli.Context, want int) error {
	args := c.Args().Slice()
	if want < 0 {
		want = len(args)
	}
	if len(args) > want {
		if a := args[want]; strings.HasPrefix(a, "-") {
			return usageErrorf(c, "flag %s after an argument: flags go before arguments", a)
		}
		return usageErrorf(c, "unexpected argument %q", args[want])
	}
	if len(args) < want {
		return usageErrorf(c, "missing argument")
	}
	if c.IsSet("top") && c.Int("top") < 0 {
		return usageErrorf(c, "--top: must be >= 0 (0 = all), got %d", c.Int("top"))
	}
	if r, ok := required[c.Command.Name]; ok && !c.IsSet(r.flag) {
		return usageErrorf(c, "missing --%s: %s", r.flag, r.what)
	}
	for _, name := range pathFlags {
		if c.IsSet(name) && c.String(name) == "" {
			return usageErrorf(c, "--%s: empty: give a path", name)
		}
	}
	if c.IsSet("otlp") && c.String("otlp") == "-" {
		return usageErrorf(c, "%v", errOTLPStdout) // a bad flag value: exit 2, as the README's table says
	}
	return checkOutputs(c)
}

// pathFlags name a file or directory: an empty one is refused (--out ""
// tried to swap the working directory itself for the run's outputs).
var pathFlags = []string{"out", "in", "scenario", "trace", "otlp"}

// budgetFlags are run's and compare's limits on the size of a run.
func budgetFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Uint64Flag{Name: "max-events", Usage: "refuse (or stop) a run of more engine events than this (0 = no limit)", Value: scenario.DefaultBudget.MaxEvents},
		&cli.StringFlag{Name: "max-memory", Usage: "refuse a run whose estimated memory is above this (bytes, or with KiB, MiB, GiB, or kB, MB, GB; 0 = no limit)", Value: "8GiB"},
	}
}

// budgetOf reads the budget flags.
func budgetOf(c *cli.Context) (scenario.Budget, error) {
	mem, err := parseBytes(c.String("max-memory"))
	if err != nil {
		return scenario.Budget{}, usageErrorf(c, "--max-memory: %v", err)
	}
	return scenario.Budget{MaxEvents: c.Uint64("max-events"), MaxMemory: mem}, nil
}

// parseBytes reads a size in binary units ("8GiB", "512MiB", "64KiB"), SI
// units ("10MB", "2GB", "64kB": powers of 1000), bytes ("100B") or a plain
// number of bytes.
func parseBytes(s string) (uint64, error) {
	mult := 1.0
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = rest, u.m
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v >= 0) || v*mult >= math.MaxUint64 {
		return 0, errors.New("want a size such as 8GiB, 512MiB, 10MB, 2GB or 1000000")
	}
	return uint64(v * mult), nil
}

// infeasibleError is a tune that found no feasible setting: Main exits
// with exitInfeasible.
type infeasibleError struct{ err error }

func (e *infeasibleError) Error() string { return e.err.Error() }
func (e *infeasibleError) Unwrap() error { return e.err }
