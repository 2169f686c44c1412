//go:build linux

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mounts makes, under a temporary directory, a tmpfs mounted on mnt and a
// directory ro bind-mounted read-only onto itself, or skips the test when
// this process may not mount (not root, or no CAP_SYS_ADMIN).
func mounts(t *testing.T) (root, mnt, ro string) {
	t.Helper()
	root = t.TempDir()
	mnt, ro = filepath.Join(root, "mnt"), filepath.Join(root, "ro")
	for _, d := range []string{mnt, ro} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("mount -t tmpfs %s: %v (the test needs root)", mnt, err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	if err := syscall.Mount(ro, ro, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("mount --bind %s: %v", ro, err)
	}
	t.Cleanup(func() { syscall.Unmount(ro, syscall.MNT_DETACH) })
	if err := syscall.Mount(ro, ro, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("mount -o remount,bind,ro %s: %v", ro, err)
	}
	if err := os.WriteFile(filepath.Join(ro, "probe"), nil, 0o644); err == nil {
		t.Fatalf("%s is not read-only", ro)
	}
	return root, mnt, ro
}

// TestOutOnMountRefused: every command that writes a folder (or a trace
// file), given an --out that is a mount point (a tmpfs; a read-only bind
// mount, which has its parent's device) or under a read-only mount, exits
// 2 at once, naming the folder and why, and writes nothing anywhere. "At
// once" is before the scenario is read or anything runs: run and compare
// name a scenario that does not exist (an error if it were read) or a
// week-long one, and the one line on stderr is the refusal (no warning,
// no "wrote").
func TestOutOnMountRefused(t *testing.T) {
	root, mnt, ro := mounts(t)
	shards := filepath.Join(root, "shards")
	for _, d := range []string{"shard-0", "shard-1"} {
		os.MkdirAll(filepath.Join(shards, d), 0o755)
	}
	missing := filepath.Join(root, "missing.yaml")
	commands := []struct {
		name string
		args func(out string) []string
		file bool // --out is a file
	}{
		{"run", func(o string) []string { return []string{"run", "--scenario", missing, "--out", o} }, false},
		{"run a week", func(o string) []string { return []string{"run", "--scenario", "studio-week", "--out", o} }, false},
		{"compare", func(o string) []string { return []string{"compare", "--scenario", missing, "--out", o} }, false},
		{"compare a week --report", func(o string) []string {
			return []string{"compare", "--scenario", "studio-week", "--report", "--out", o}
		}, false},
		{"compare --seeds", func(o string) []string {
			return []string{"compare", "--scenario", "studio-week", "--seeds", "3", "--out", o}
		}, false},
		{"compare --shard", func(o string) []string {
			return []string{"compare", "--scenario", "studio-week", "--seeds", "2", "--shard", "1/2", "--out", o}
		}, false},
		{"sweep", func(o string) []string { return []string{"sweep", "--out", o, "testdata/sweep.yaml"} }, false},
		{"tune", func(o string) []string { return []string{"tune", "--out", o, "../examples/tune.yaml"} }, false},
		{"gate", func(o string) []string { return []string{"gate", "--out", o, "../examples/ci-gate.yaml"} }, false},
		{"gate --junit", func(o string) []string {
			return []string{"gate", "--out", filepath.Join(root, "gate-out"), "--junit", o, "../examples/ci-gate.yaml"}
		}, true},
		{"gate --markdown", func(o string) []string {
			return []string{"gate", "--out", filepath.Join(root, "gate-out"), "--markdown", o, "../examples/ci-gate.yaml"}
		}, true},
		{"merge", func(o string) []string {
			return []string{"merge", "--out", o, filepath.Join(shards, "shard-0"), filepath.Join(shards, "shard-1")}
		}, false},
		{"report", func(o string) []string { return []string{"report", "--in", o} }, false},
		{"trace gen", func(o string) []string { return []string{"trace", "gen", "--scenario", "studio-week", "--out", o} }, true},
		{"trace import", func(o string) []string {
			return []string{"trace", "import", "--from", "inspect", "--out", o, "../workloads/agentlog/testdata/inspect-security-guide.json"}
		}, true},
	}
	outs := []struct {
		name, out, why string
	}{
		{"a tmpfs mount point", mnt, "is a mount point: "},
		{"a read-only bind mount point", ro, "is a mount point: "},
		{"under a read-only mount", filepath.Join(ro, "out"), "is on a read-only file system (" + ro + " is mounted read-only)"},
		{"deep under a read-only mount", filepath.Join(ro, "a", "b", "out"), "is on a read-only file system (" + ro + " is mounted read-only)"},
	}
	for _, c := range commands {
		for _, o := range outs {
			if c.file && o.out == mnt {
				continue // a file's path is never a directory's mount point
			}
			if c.name == "report" && !strings.HasPrefix(o.why, "is a mount point") {
				continue // report writes into --in, which must exist
			}
			out, named := o.out, o.out
			if c.name == "compare --shard" {
				// A shard's folder is inside --out: a mount point is a
				// fine --out for it, a read-only one is not.
				if o.out == mnt {
					continue
				}
				named = filepath.Join(out, "shard-1")
				o.why = "is on a read-only file system (" + ro + " is mounted read-only)"
			}
			if c.file {
				out = filepath.Join(filepath.Dir(o.out), filepath.Base(o.out)+".jsonl")
				if o.out == ro {
					out = filepath.Join(ro, "jobs.jsonl")
					o.why = "is on a read-only file system (" + ro + " is mounted read-only)"
				}
				named = out
			}
			t.Run(fmt.Sprintf("%s %s", c.name, o.name), func(t *testing.T) {
				before := treeOf(t, root)
				_, stderr, code := runSim(t, c.args(out)...)
				if code != exitUsage {
					t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
				}
				prefix := "sim: "
				if c.name == "report" {
					prefix = "sim: report: "
				}
				if want := prefix + named + " " + o.why; !strings.HasPrefix(stderr, want) {
					t.Errorf("stderr %q, want it to start %q", stderr, want)
				}
				if n := strings.Count(stderr, "\n"); n != 1 {
					t.Errorf("%d lines on stderr, want the refusal alone:\n%s", n, stderr)
				}
				if diff := cmp.Diff(before, treeOf(t, root)); diff != "" {
					t.Errorf("something was written (-before +after):\n%s", diff)
				}
			})
		}
	}
}
