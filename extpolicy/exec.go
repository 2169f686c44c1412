package extpolicy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evalsched/lab/policies"
)

// Protocol is the version of the policy protocol the adapter speaks.
const Protocol = 1

// maxLine bounds a line the process writes.
const maxLine = 64 << 20

// MinTick is the shortest tick a process may ask for. A tick is a round
// trip to the process; one of 1 ns would ask for 3.6e12 of them per
// virtual hour (a run that never ends), one of 100 ms for 36,000.
const MinTick = 100 * time.Millisecond

// Options are the inputs of Start besides the config.
type Options struct {
	// Models is the catalogue; a ModelID is an index in it.
	Models []string
	// Epoch is the instant the protocol's times count from (nanoseconds).
	Epoch time.Time
	// Settings, if set, is handed to the process in the handshake as
	// settings (the scenario's settings of the built-in policies).
	Settings any
	// Stderr receives the process's stderr, each line prefixed with
	// "[NAME] "; nil: os.Stderr.
	Stderr io.Writer
}

// Policy is a policies.Policy whose decisions are made by another
// process. It implements policies.Fallible (Err), policies.DepthTargets
// (the targets the process announces, nil if none) and io.Closer.
type Policy struct {
	label   string // for messages: the command as given
	name    string // as the process announced it
	trigger policies.Trigger
	targets []float64
	timeout time.Duration
	epoch   time.Time
	models  int
	names   []string

	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	rd     *bufio.Reader
	out    []byte // messages not yet written (enqueue, finished)
	exited bool

	waiting  map[policies.JobID]policies.ModelID
	limits   []int
	limited  bool  // the process has announced limits
	perModel []int // the starts of the plan being checked, by model
	seq      int64
	err      error
	reply    reply
}

// Start runs the command and shakes hands with it. An error here means no
// policy: the process did not start, or did not answer the handshake as
// the protocol says.
func Start(cfg Config, opts Options) (*Policy, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("exec policy: no command (give exec:CMD or policies.exec.command)")
	}
	p := &Policy{label: strings.Join(cfg.Command, " "), timeout: cfg.Timeout, epoch: opts.Epoch, models: len(opts.Models), names: opts.Models,
		waiting: map[policies.JobID]policies.ModelID{}, limits: make([]int, len(opts.Models))}
	if p.timeout <= 0 {
		p.timeout = DefaultTimeout
	}
	stderr := opts.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, p.fail("start", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, p.fail("start", err)
	}
	p.cmd = exec.Command(cfg.Command[0], cfg.Command[1:]...)
	p.cmd.Stdin, p.cmd.Stdout = inR, outW
	p.cmd.Stderr = &prefixWriter{w: stderr, prefix: "[exec " + filepath.Base(cfg.Command[0]) + "] "}
	// A child the process leaves holding stderr must not keep Wait (the
	// copy of stderr) waiting: it is given this long after the process
	// exits.
	p.cmd.WaitDelay = p.timeout
	inGroup(p.cmd)
	err = p.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("exec policy %s: did not start: %w", p.label, err)
	}
	register(p.cmd)
	p.stdin, p.stdout = inW, outR
	p.rd = bufio.NewReaderSize(outR, 1<<16)
	if err := p.handshake(cfg, opts); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// hello is the lab's handshake message.
type hello struct {
	Type     string   `json:"type"`
	Protocol int      `json:"protocol"`
	Epoch    string   `json:"epoch"`
	Models   []string `json:"models"`
	Config   any      `json:"config"`
	Settings any      `json:"settings,omitempty"`
}

// reply is any message of the process; which fields it may carry depends
// on its type (see the schema).
type reply struct {
	Type     string `json:"type"`
	Protocol int    `json:"protocol"`
	Name     string `json:"name"`
	Trigger  *struct {
		Tick    int64 `json:"tick"`
		OnEvent bool  `json:"on_event"`
	} `json:"trigger"`
	// Numbers in lists are read raw, so that a null (which encoding/json
	// reads as 0) or a value out of range is refused, not used.
	Targets []json.RawMessage `json:"targets"`
	Seq     *int64            `json:"seq"`
	Start   []json.RawMessage `json:"start"`
	Limits  []json.RawMessage `json:"limits"`
	Message string            `json:"message"`
}

func (p *Policy) handshake(cfg Config, opts Options) error {
	h := hello{Type: "hello", Protocol: Protocol, Epoch: opts.Epoch.UTC().Format(time.RFC3339Nano), Models: opts.Models,
		Config: cfg.Config, Settings: opts.Settings}
	if h.Models == nil {
		h.Models = []string{}
	}
	b, err := json.Marshal(h)
	if err != nil {
		return p.fail("hello", fmt.Errorf("the config cannot be sent as JSON: %w", err))
	}
	p.out = append(append(p.out, b...), '\n')
	if err := p.roundTrip("hello"); err != nil {
		return err
	}
	r := &p.reply
	switch {
	case r.Type != "hello":
		return p.fail("hello", fmt.Errorf("answered a %q message, want hello", r.Type))
	case r.Protocol != Protocol:
		return p.fail("hello", fmt.Errorf("speaks protocol %d, the lab speaks %d", r.Protocol, Protocol))
	case r.Trigger == nil || (r.Trigger.Tick <= 0 && !r.Trigger.OnEvent) || r.Trigger.Tick < 0:
		return p.fail("hello", errors.New("trigger: want a positive tick (ns) or on_event true"))
	case r.Trigger.Tick > 0 && time.Duration(r.Trigger.Tick) < MinTick:
		return p.fail("hello", fmt.Errorf("trigger.tick: %v is shorter than the minimum %v (a decision is a round trip to the process)", time.Duration(r.Trigger.Tick), MinTick))
	case r.Targets != nil && len(r.Targets) != p.models:
		return p.fail("hello", fmt.Errorf("targets has %d entries, the catalogue %d models", len(r.Targets), p.models))
	}
	if r.Targets != nil {
		p.targets = make([]float64, len(r.Targets))
		for i, raw := range r.Targets {
			v, err := number(raw, "a number")
			if err == nil && !(v >= 0 && v <= maxValue) {
				err = fmt.Errorf("%s is outside [0, %d]", raw, maxValue)
			}
			if err != nil {
				return p.fail("hello", fmt.Errorf("targets[%d] (%s): %w", i, p.modelName(i), err))
			}
			p.targets[i] = v
		}
	}
	p.name = r.Name
	if p.name == "" {
		p.name = "exec"
	}
	p.trigger = policies.Trigger{Tick: time.Duration(r.Trigger.Tick), OnEvent: r.Trigger.OnEvent}
	return nil
}

func (p *Policy) Name() string               { return p.name }
func (p *Policy) Trigger() policies.Trigger  { return p.trigger }
func (p *Policy) Waiting() int               { return len(p.waiting) }
func (p *Policy) Err() error                 { return p.err }
func (p *Policy) TargetDepths() []float64    { return p.targets }
func (p *Policy) ns(t time.Time) int64       { return int64(t.Sub(p.epoch)) }
func (p *Policy) at(t time.Time) string      { return t.Sub(p.epoch).String() }
func (p *Policy) appendT(t time.Time) []byte { return strconv.AppendInt(p.out, p.ns(t), 10) }

// Enqueue sends an enqueue message (written with the next decide).
func (p *Policy) Enqueue(now time.Time, job policies.Job) {
	if p.err != nil {
		return
	}
	if _, dup := p.waiting[job.ID]; dup {
		p.err = fmt.Errorf("exec policy %s: job %d enqueued at %s while it is waiting", p.label, job.ID, p.at(now))
		return
	}
	p.waiting[job.ID] = job.Model
	arrival := job.Arrival
	if arrival.IsZero() {
		arrival = now
	}
	b := append(p.out, `{"type":"enqueue","t":`...)
	b = strconv.AppendInt(b, p.ns(now), 10)
	b = append(b, `,"job":{"id":`...)
	b = strconv.AppendInt(b, int64(job.ID), 10)
	b = append(b, `,"account":`...)
	b = appendString(b, job.Account)
	b = append(b, `,"project":`...)
	b = appendString(b, job.Project)
	b = append(b, `,"batch":`...)
	b = appendString(b, job.Batch)
	b = append(b, `,"tiers":[`...)
	b = strconv.AppendInt(b, int64(job.AccountTier), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(job.ProjectTier), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(job.BatchTier), 10)
	b = append(b, `],"model":`...)
	b = strconv.AppendInt(b, int64(job.Model), 10)
	b = append(b, `,"arrival":`...)
	b = strconv.AppendInt(b, p.ns(arrival), 10)
	p.out = append(b, "}}\n"...)
}

// Finished sends a finished message (written with the next decide).
func (p *Policy) Finished(now time.Time, id policies.JobID, model policies.ModelID) {
	if p.err != nil {
		return
	}
	b := append(p.out, `{"type":"finished","t":`...)
	b = strconv.AppendInt(b, p.ns(now), 10)
	b = append(b, `,"id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"model":`...)
	b = strconv.AppendInt(b, int64(model), 10)
	p.out = append(b, "}\n"...)
}

// Decide sends what has happened since the last decision and a decide
// message, and turns the plan reply into plan. On any failure it starts
// nothing and Err reports why.
func (p *Policy) Decide(now time.Time, state policies.State, plan *policies.Plan) {
	if p.err != nil {
		return
	}
	p.seq++
	p.out = p.appendDecide(p.out, now, state)
	what := fmt.Sprintf("decide #%d at %s", p.seq, p.at(now))
	if p.err = p.roundTrip(what); p.err != nil {
		return
	}
	r := &p.reply
	switch {
	case r.Type != "plan":
		p.err = p.fail(what, fmt.Errorf("answered a %q message, want plan", r.Type))
	case r.Seq == nil || *r.Seq != p.seq:
		p.err = p.fail(what, fmt.Errorf("the plan answers decide %s, want %d", seqText(r.Seq), p.seq))
	case r.Limits != nil && len(r.Limits) != p.models:
		p.err = p.fail(what, fmt.Errorf("limits has %d entries: model %d is not in the catalogue of %d models", len(r.Limits), min(len(r.Limits), p.models), p.models))
	}
	if p.err != nil {
		return
	}
	if p.err = p.check(what, state); p.err != nil {
		return
	}
	for _, raw := range r.Start {
		id, _ := strconv.ParseInt(string(raw), 10, 64) // checked
		delete(p.waiting, policies.JobID(id))
		plan.Start = append(plan.Start, policies.JobID(id))
	}
	if r.Limits != nil {
		p.limited = true
		plan.Limits = p.limits
	}
}

func (p *Policy) modelName(i int) string {
	if i < len(p.names) {
		return "model " + strconv.Itoa(i) + " (" + p.names[i] + ")"
	}
	return "model " + strconv.Itoa(i)
}

func seqText(s *int64) string {
	if s == nil {
		return "(none)"
	}
	return strconv.FormatInt(*s, 10)
}

// roundTrip writes the pending messages and reads one reply line, both
// within the timeout.
func (p *Policy) roundTrip(what string) error {
	deadline := time.Now().Add(p.timeout)
	p.stdin.SetWriteDeadline(deadline)
	_, err := p.stdin.Write(p.out)
	p.out = p.out[:0]
	if err != nil {
		return p.broken(what, "writing to it", err)
	}
	p.stdout.SetReadDeadline(deadline)
	line, err := p.readLine()
	if err != nil {
		return p.broken(what, "reading its answer", err)
	}
	p.reply = reply{}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p.reply); err != nil {
		return p.fail(what, fmt.Errorf("answered %s: not a protocol message: %v", excerpt(line), err))
	}
	if dec.More() {
		return p.fail(what, fmt.Errorf("answered %s: more than one JSON value on a line", excerpt(line)))
	}
	if p.reply.Type == "error" {
		return p.fail(what, fmt.Errorf("reported an error: %s", p.reply.Message))
	}
	return nil
}

// readLine reads one line (without its newline) of at most maxLine bytes.
func (p *Policy) readLine() ([]byte, error) {
	var long []byte
	for {
		frag, err := p.rd.ReadSlice('\n')
		if err == nil {
			if long != nil {
				return append(long, frag[:len(frag)-1]...), nil
			}
			return frag[:len(frag)-1], nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) && len(long)+len(frag) > 0 {
				return nil, fmt.Errorf("a last line without a newline: %w", err)
			}
			return nil, err
		}
		long = append(long, frag...)
		if len(long) > maxLine {
			return nil, fmt.Errorf("a line longer than %d bytes", maxLine)
		}
	}
}

// broken reports a failed read or write: the process exited, or took too
// long (it is killed then).
func (p *Policy) broken(what, doing string, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		p.kill()
		return p.fail(what, fmt.Errorf("no answer within %v (the timeout): killed", p.timeout))
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed) || isBrokenPipe(err) {
		status, killed := p.end()
		if killed {
			return p.fail(what, fmt.Errorf("closed its stdout and %s", strings.TrimPrefix(status, "exited, but ")))
		}
		return p.fail(what, fmt.Errorf("exited (%s) before answering", status))
	}
	return p.fail(what, fmt.Errorf("%s: %w", doing, err))
}

func isBrokenPipe(err error) bool {
	return strings.Contains(err.Error(), "broken pipe")
}

// end closes the process's stdin, reads its stdout to the end and waits
// for it to exit, each for at most the timeout, and describes how it
// ended. Whatever of it is left then (the process, a child of it holding
// its stdout) is killed, its process group with it, and killed says so:
// nothing the process started outlives its policy, and ending it takes
// at most twice the timeout.
func (p *Policy) end() (status string, killed bool) {
	if p.exited {
		return "already", false
	}
	p.stdin.Close()
	p.stdout.SetReadDeadline(time.Now().Add(p.timeout))
	if _, err := io.Copy(io.Discard, p.rd); errors.Is(err, os.ErrDeadlineExceeded) {
		killGroup(p.cmd)
		killed = true
	}
	err, late := waitBounded(p.cmd, p.timeout)
	p.exited = true
	switch {
	case killed && !late && err == nil:
		return "exited, but left a process holding its stdout open past the timeout: killed", true
	case killed || late:
		return fmt.Sprintf("did not exit within %v: killed", p.timeout), true
	case err == nil:
		return "exit status 0", false
	}
	return err.Error(), false
}

func (p *Policy) kill() {
	if p.exited {
		p.stdout.Close()
		return
	}
	killGroup(p.cmd)
	p.stdin.Close()
	waitBounded(p.cmd, p.timeout)
	p.exited = true
	p.stdout.Close()
}

// Close ends the process: its stdin is closed, and it must exit (with
// status 0) within the timeout, or it is killed and Close reports it. A
// policy that failed is closed without a further error.
func (p *Policy) Close() error {
	if p.exited {
		return nil
	}
	status, killed := p.end()
	p.stdout.Close()
	switch {
	case p.err != nil:
	case killed:
		return fmt.Errorf("exec policy %s: at the end of the run (its stdin closed): %s", p.label, status)
	case status != "exit status 0":
		return fmt.Errorf("exec policy %s: at the end of the run: %s", p.label, status)
	}
	return nil
}

// fail makes the error of a message: the command, the message and what
// went wrong.
func (p *Policy) fail(what string, err error) error {
	return fmt.Errorf("exec policy %s: %s: %w", p.label, what, err)
}

// excerpt quotes a line, cut to a readable length.
func excerpt(line []byte) string {
	const most = 120
	if len(line) > most {
		return strconv.Quote(string(line[:most])) + "..."
	}
	return strconv.Quote(string(line))
}

// prefixWriter writes each line of what it is given after a prefix.
type prefixWriter struct {
	w       io.Writer
	prefix  string
	midLine bool
}

func (w *prefixWriter) Write(b []byte) (int, error) {
	n := len(b)
	var out []byte
	for len(b) > 0 {
		if !w.midLine {
			out = append(out, w.prefix...)
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b...)
			w.midLine = true
			break
		}
		out = append(out, b[:i+1]...)
		b = b[i+1:]
		w.midLine = false
	}
	_, err := w.w.Write(out)
	return n, err
}
