package cli

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The studies' verdict sentences follow from their own tables: each test
// reads a study's file, recomputes the verdict from the numbers in its
// tables (not from the generator) and checks the sentence says it.

// studyTable is the table whose header row starts with head: its rows as
// cells, keyed by the first cell.
func studyTable(t *testing.T, text, head string) (cols []string, rows map[string][]string, order []string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, head) {
			continue
		}
		cols = splitRow(l)
		rows = map[string][]string{}
		for _, r := range lines[i+2:] {
			if !strings.HasPrefix(r, "|") {
				break
			}
			c := splitRow(r)
			rows[c[0]] = c
			order = append(order, c[0])
		}
		return cols, rows, order
	}
	t.Fatalf("no table with header %q", head)
	return nil, nil, nil
}

func splitRow(l string) []string {
	c := strings.Split(strings.Trim(l, "|"), "|")
	for i := range c {
		c[i] = strings.TrimSpace(c[i])
	}
	return c
}

func readStudy(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../docs/studies/" + name + ".md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func num(t *testing.T, cell string) float64 {
	t.Helper()
	s := strings.NewReplacer(",", "", "×", "", "%", "").Replace(cell)
	if i := strings.IndexAny(s, " /["); i > 0 {
		s = s[:i]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("cell %q: %v", cell, err)
	}
	return v
}

func TestIncidentStudyVerdicts(t *testing.T) {
	text := readStudy(t, "incident-0214")
	_, rows, order := studyTable(t, text, "| variant | prod outage min")
	var safe []string
	for _, v := range order[1:] {
		if num(t, rows[v][1]) == 0 {
			safe = append(safe, v)
		}
	}
	m := regexp.MustCompile(`keep production free of outage minutes:\*\* ([^.]*)\.`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("no sentence on the remedies that keep production free")
	}
	if diff := cmp.Diff(safe, strings.Split(m[1], ", ")); diff != "" {
		t.Errorf("remedies free of outage minutes (-table +sentence):\n%s", diff)
	}
	// The crossing is no-guard's first outage minute.
	from, _, _ := strings.Cut(rows["no-guard"][2], "–")
	if !strings.Contains(text, "production's first outage minute begins at "+from+" ") {
		t.Errorf("the crossing sentence does not name no-guard's first outage minute %s", from)
	}
	// Sentences present exactly when the table supports them.
	for _, c := range []struct {
		sentence string
		want     bool
	}{
		{"**The worker cap** (code-level isolation) still exhausts the day", num(t, rows["worker-cap"][1]) > 0},
		{"**The self-throttle** slows the burn", num(t, rows["self-throttle"][1]) > 0 && rows["self-throttle"][2] > rows["no-guard"][2]},
		{"**The virtual key** protects production only while", num(t, rows["virtual-key"][1]) == 0 && num(t, rows["virtual-key-pool-binds"][1]) > 0},
		{"**Gap: the source's recovery at 04:00 is not reproduced.**", strings.SplitN(rows["no-guard"][2], "–", 2)[1] > "04:00"},
	} {
		if got := strings.Contains(text, c.sentence); got != c.want {
			t.Errorf("%q in the study: %v, the table says %v", c.sentence, got, c.want)
		}
	}
}

// ciCell reads "1.02× [0.77×, 1.34×]".
func ciCell(t *testing.T, cell string) (mean, lo, hi float64) {
	t.Helper()
	if _, err := fmt.Sscanf(strings.ReplaceAll(cell, "×", ""), "%g [%g, %g]", &mean, &lo, &hi); err != nil {
		t.Fatalf("cell %q: %v", cell, err)
	}
	return mean, lo, hi
}

func TestQuotaBoundStudyVerdicts(t *testing.T) {
	text := readStudy(t, "quota-bound-lanes")
	_, rows, order := studyTable(t, text, "| lane | scheduler | tokens |")
	var contain []string
	for _, l := range order {
		if !strings.HasPrefix(l, "claude-") {
			continue
		}
		if _, lo, hi := ciCell(t, rows[l][1]); lo <= 1 && 1 <= hi {
			contain = append(contain, l)
		}
	}
	want := fmt.Sprintf("jobs/h interval contains 1 on %d of 5 lanes (%s)", len(contain), strings.Join(contain, ", "))
	if len(contain) == 0 {
		want = "jobs/h interval contains 1 on 0 of 5 lanes (none)"
	}
	if !strings.Contains(text, want) {
		t.Errorf("want the sentence %q", want)
	}
	_, _, hi := ciCell(t, rows["gpt-5.5"][1])
	if got := strings.Contains(text, "**Not met: gpt-5.5**"); got != (hi < 1) {
		t.Errorf("\"Not met: gpt-5.5\" in the study: %v; its interval's top is %g", got, hi)
	}
	// The pinned control: ordering is neutral exactly when its interval holds 1.
	_, ctl, _ := studyTable(t, text, "| arm | gpt-5.5 ÷ fixed-lane |")
	for arm, c := range ctl {
		if strings.HasPrefix(arm, "gpt-5.5 pinned") {
			_, lo, hi := ciCell(t, c[1])
			if got := strings.Contains(text, "**Ordering is neutral:**"); got != (lo <= 1 && 1 <= hi) {
				t.Errorf("\"Ordering is neutral\" in the study: %v; the pinned arm's interval is [%g, %g]", got, lo, hi)
			}
		}
	}
	// The blocked-share sentence: every lane's scheduler top below fixed-lane's bottom.
	_, blocked, border := studyTable(t, text, "| lane | fixed-lane | scheduler | old signal |")
	below := true
	for _, l := range border {
		lohi := func(cell string) (lo, hi float64) {
			fmt.Sscanf(cell[strings.Index(cell, "[")+1:], "%g–%g", &lo, &hi)
			return lo, hi
		}
		flo, _ := lohi(blocked[l][1])
		_, shi := lohi(blocked[l][2])
		below = below && shi < flo
	}
	if got := strings.Contains(text, "On every lane and seed the scheduler's blocked share is below fixed-lane's lowest."); got != below {
		t.Errorf("the blocked-share sentence: %v, the table says %v", got, below)
	}
}

func TestMetersStudyVerdicts(t *testing.T) {
	text := readStudy(t, "meters")
	sections := strings.Split(text, "\n## ")
	checked := 0
	for _, sec := range sections[1:] {
		name, _, _ := strings.Cut(sec, " ")
		if name == "What" {
			continue
		}
		cols, mult, _ := studyTable(t, sec, "| lane | today |")
		_, prod, order := studyTable(t, sec, "| | today |")
		for j := 2; j < len(cols); j++ {
			preset := cols[j]
			moved := math.Abs(num(t, mult["(all)"][j])/num(t, mult["(all)"][1])-1) >= 0.05
			for _, r := range order {
				if strings.HasPrefix(r, "production ") || strings.HasPrefix(r, "first production") {
					moved = moved || prod[r][j] != prod[r][1]
				}
			}
			if r, ok := prod[order[slices.IndexFunc(order, func(s string) bool { return strings.HasPrefix(s, "cost per job") })]]; ok && r[1] != "-" {
				moved = moved || math.Abs(num(t, r[j])/num(t, r[1])-1) >= 0.05
			}
			bullet := regexp.MustCompile(`(?m)^- ` + regexp.QuoteMeta(name+", `"+preset+"` against today's meter: ") + `(.*)$`).FindStringSubmatch(text)
			if bullet == nil {
				t.Errorf("%s, %s: no verdict", name, preset)
				continue
			}
			if still := strings.HasPrefix(bullet[1], "the (all) multiplier and the cost-per-job ratio move by less than"); still == moved {
				t.Errorf("%s, %s: the verdict %q, but the tables say moved = %v", name, preset, bullet[1], moved)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no verdict checked")
	}
}
