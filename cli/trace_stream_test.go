package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTraceGenIntoAStream: --out naming a pipe (as /dev/stdout piped into
// another tool does) gets the trace written into it, not a regular file
// renamed over it, and the "wrote" line goes to stderr, off the stream.
func TestTraceGenIntoAStream(t *testing.T) {
	_, want := generatorJobs(t, 5)
	fifo := filepath.Join(t.TempDir(), "jobs.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	lines := make(chan int)
	go func() { // the tool at the other end of the pipe
		f, err := os.Open(fifo)
		if err != nil {
			lines <- -1
			return
		}
		defer f.Close()
		n, sc := 0, bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "{") {
				n++
			}
		}
		lines <- n
	}()
	out, err := runTrace(t, "gen", "--scenario", traceScenario, "--seed", "5", "--out", fifo)
	if err != nil {
		t.Fatal(err)
	}
	if got := <-lines; got != len(want) {
		t.Errorf("the pipe's reader got %d records, want %d", got, len(want))
	}
	if strings.Contains(out, "wrote") {
		t.Errorf("stdout %q has the wrote line; it belongs on stderr when the trace is a stream", out)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v, %v", fi.Mode(), err)
	}
}

// TestTraceGenRefusesWhatItCannotWrite: a full device fails the command
// (and stays a device); a directory is refused.
func TestTraceGenRefusesWhatItCannotWrite(t *testing.T) {
	if fi, err := os.Stat("/dev/full"); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		_, err := runTrace(t, "gen", "--scenario", traceScenario, "--seed", "5", "--out", "/dev/full")
		if err == nil || !strings.Contains(err.Error(), "/dev/full") {
			t.Errorf("writing to /dev/full: error %v, want one naming it", err)
		}
		if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("/dev/full is no longer a device: %v, %v", fi.Mode(), err)
		}
	}
	dir := t.TempDir()
	_, err := runTrace(t, "gen", "--scenario", traceScenario, "--seed", "5", "--out", dir)
	if want := dir + " is a directory, not a file"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if n, _ := os.ReadDir(dir); len(n) != 0 {
		t.Errorf("the refusal left %d files in %s", len(n), dir)
	}
}
