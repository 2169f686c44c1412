package pgoinline

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/hot-inlines.txt from this build")

const (
	module = "github.com/evalsched/lab"
	golden = "testdata/hot-inlines.txt"
)

// hotInline is one log line of the compiler's profile-guided inlining.
var hotInline = regexp.MustCompile(`^hot-budget check allows inlining for call (\S+) \(cost \d+\) at \S+ in function (\S+)$`)

// hotInlines builds cmd/sim as bench/pgo.sh's profile guides it and
// returns its hot inlined calls, each "caller <- callee" with the module's
// path cut, sorted and without repeats.
func hotInlines(t *testing.T) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: cannot build cmd/sim")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "build", "-o", os.DevNull, "-pgo="+filepath.Join(root, "cmd/sim/default.pgo"),
		"-gcflags="+module+"/...=-d=pgodebug=1", "./cmd/sim")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var calls []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := hotInline.FindStringSubmatch(sc.Text()); m != nil {
			calls = append(calls, short(m[2])+" <- "+short(m[1]))
		}
	}
	slices.Sort(calls)
	return slices.Compact(calls)
}

// short cuts the module's path from a function's name.
func short(fn string) string { return strings.ReplaceAll(fn, module+"/", "") }

func TestHotCallsStayInlined(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the check builds cmd/sim with the profile (up to a minute)")
	}
	got := hotInlines(t)
	if len(got) == 0 {
		t.Fatal("the build logged no profile-guided inlining: is cmd/sim/default.pgo there?")
	}
	if *update {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s: the hot calls cmd/sim/default.pgo lets the compiler inline above its budget, caller <- callee (go test ./internal/pgoinline -update)\n", runtime.Version())
		for _, c := range got {
			b.WriteString(c + "\n")
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (write it with go test ./internal/pgoinline -update)", err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	version, _, _ := strings.Cut(strings.TrimPrefix(lines[0], "# "), ":")
	if version != runtime.Version() {
		t.Skipf("%s was made with %s, this is %s: the compiler's profile thresholds may differ", golden, version, runtime.Version())
	}
	want := slices.Sorted(slices.Values(lines[1:]))
	for _, c := range want {
		if _, found := slices.BinarySearch(got, c); !found {
			t.Errorf("no longer inlined: %s", c)
		}
	}
	if t.Failed() {
		t.Log("A hot call the profile inlined is now a call. The profile names it by its line within the caller: " +
			"an edit above it (a line added or removed) moves it out of the profile's reach. Restore the lines, or " +
			"regenerate the profile (bash bench/pgo.sh), check bash bench/costgate_ir.sh, and rewrite the list with " +
			"go test ./internal/pgoinline -update.")
	}
	for _, c := range got {
		if _, found := slices.BinarySearch(want, c); !found {
			t.Logf("newly inlined (not in %s; -update adds it): %s", golden, c)
		}
	}
}
