package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/google/go-cmp/cmp"
)

// batchScenario is testdata/small.yaml with every batch large (more than
// 1,000 jobs), so batches.csv has rows to break too.
func batchScenario(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const old = "size: {dist: pareto, min: 50, max: 2000, alpha: 1.2}"
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("testdata/small.yaml no longer sets %q", old)
	}
	p := filepath.Join(t.TempDir(), "batches.yaml")
	if err := os.WriteFile(p, bytes.Replace(data, []byte(old), []byte("size: {dist: uniform, min: 1100, max: 1400}"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// csvRows splits a row file sim wrote into its header and rows (no line ends).
func csvRows(s string) (header string, rows []string) {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return lines[0], lines[1:]
}

func csvJoin(header string, rows []string) string {
	if len(rows) == 0 {
		return header + "\n"
	}
	return header + "\n" + strings.Join(rows, "\n") + "\n"
}

// rowTime is a row's t_s (the second field of both row files).
func rowTime(t *testing.T, row string) float64 {
	f := strings.Split(row, ",")
	v, err := strconv.ParseFloat(f[1], 64)
	if err != nil {
		t.Fatalf("row %q: %v", row, err)
	}
	return v
}

// splice puts another seed's rows into a row file in time order: per
// policy (in the file's order), the two seeds' rows sorted stably by time,
// so each run's rows, and each batch's, are still in time order and every
// row passes the row checks.
func splice(t *testing.T, mine, other string) string {
	header, rows := csvRows(mine)
	_, theirs := csvRows(other)
	var policies []string
	byPolicy := map[string][]string{}
	for _, r := range append(slices.Clone(rows), theirs...) {
		p, _, _ := strings.Cut(r, ",")
		if _, ok := byPolicy[p]; !ok {
			policies = append(policies, p)
		}
		byPolicy[p] = append(byPolicy[p], r)
	}
	var out []string
	for _, p := range policies {
		rs := byPolicy[p]
		slices.SortStableFunc(rs, func(a, b string) int {
			ta, tb := rowTime(t, a), rowTime(t, b)
			switch {
			case ta < tb:
				return -1
			case ta > tb:
				return 1
			}
			return 0
		})
		out = append(out, rs...)
	}
	return csvJoin(header, out)
}

// reorderWithinTimes reverses each run of rows of one policy and time (a
// series row per model, a batch row per batch): a reordered file whose
// rows are still in time order.
func reorderWithinTimes(s string) string {
	header, rows := csvRows(s)
	key := func(r string) string {
		f := strings.SplitN(r, ",", 3)
		return f[0] + "," + f[1]
	}
	out := slices.Clone(rows)
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && key(out[j]) == key(out[i]) {
			j++
		}
		slices.Reverse(out[i:j])
		i = j
	}
	return csvJoin(header, out)
}

// recordOf counts a row file's rows with encoding/csv and hashes its bytes,
// apart from the writer's streaming count and digest.
func recordOf(t *testing.T, path string) results.RowFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return results.RowFile{Name: filepath.Base(path), Rows: int64(len(recs) - 1), SHA256: hex.EncodeToString(sum[:])}
}

// TestRowFilesRecorded: the rows and sha256 summary.json records for
// series.csv and batches.csv are those of the files as written (run,
// compare, compare --seeds and a merge of compare shards).
func TestRowFilesRecorded(t *testing.T) {
	sc := batchScenario(t)
	root := t.TempDir()
	dirs := map[string][]string{
		"run":             {"run", "--scenario", sc, "--out", filepath.Join(root, "run")},
		"compare":         {"compare", "--scenario", sc, "--out", filepath.Join(root, "compare")},
		"compare --seeds": {"compare", "--scenario", sc, "--seeds", "2", "--out", filepath.Join(root, "seeds")},
	}
	for _, sh := range []string{"0/2", "1/2"} {
		mustSim(t, nil, "compare", "--scenario", sc, "--seeds", "2", "--shard", sh, "--out", filepath.Join(root, "shards"))
	}
	mustSim(t, nil, "merge", "--out", filepath.Join(root, "merged"), filepath.Join(root, "shards", "shard-0"), filepath.Join(root, "shards", "shard-1"))
	for _, args := range dirs {
		mustSim(t, nil, args...)
	}
	for _, d := range []string{"run", "compare", "seeds", "merged", "shards/shard-1"} {
		dir := filepath.Join(root, d)
		var s results.Summary
		readJSON(t, filepath.Join(dir, "summary.json"), &s)
		var want []results.RowFile
		for _, name := range []string{"series.csv", "batches.csv"} {
			want = append(want, recordOf(t, filepath.Join(dir, name)))
		}
		if diff := cmp.Diff(want, s.Files); diff != "" {
			t.Errorf("%s: files (-as written +as recorded):\n%s", d, diff)
		}
		if (want[0].Rows == 0 || want[1].Rows == 0) && d != "shards/shard-1" { // only the first seed's rows are written
			t.Errorf("%s: rows %d and %d: the test needs both files with rows", d, want[0].Rows, want[1].Rows)
		}
	}
}

// TestBrokenRowFiles: a series.csv or batches.csv whose every row passes
// the row checks but which is not the file sim wrote (cut at a line
// boundary, another seed's rows spliced in time order, reordered, CRLF
// line ends, a value changed), or a summary.json whose record of them is
// wrong, is refused by sim report and sim quota-check with exit 1, naming
// the file and what differs, and the folder is left as it was. The folder
// as written is accepted.
func TestBrokenRowFiles(t *testing.T) {
	sc := batchScenario(t)
	root := t.TempDir()
	good, other := filepath.Join(root, "good"), filepath.Join(root, "seed2")
	mustSim(t, nil, "compare", "--scenario", sc, "--seed", "1", "--out", good)
	mustSim(t, nil, "compare", "--scenario", sc, "--seed", "2", "--out", other)
	read := func(dir, name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	var goodSummary, otherSummary results.Summary
	readJSON(t, filepath.Join(good, "summary.json"), &goodSummary)
	readJSON(t, filepath.Join(other, "summary.json"), &otherSummary)
	recorded := map[string]results.RowFile{}
	for _, f := range goodSummary.Files {
		recorded[f.Name] = f
	}
	rowsMsg := func(file string, have int) string {
		return fmt.Sprintf("rows: want %d (as summary.json records), have %d: the file was cut, or rows were added, after sim wrote it", recorded[file].Rows, have)
	}
	const changed = "the file was changed after sim wrote it"
	type rcase struct {
		name, file string
		edit       func(string) string
		want       []string // in the first line of stderr, after the path of named
		named      string   // the file the error names, if not file
	}
	var cases []rcase
	row := func(name, file string, edit func(string) string, want ...string) rcase {
		return rcase{name: name, file: file, edit: edit, want: want}
	}
	for _, file := range []string{"series.csv", "batches.csv"} {
		mine, theirs := read(good, file), read(other, file)
		header, rows := csvRows(mine)
		n := len(rows)
		spliced := splice(t, mine, theirs)
		_, splicedRows := csvRows(spliced)
		reordered := reorderWithinTimes(mine)
		if reordered == mine {
			t.Fatalf("%s: no two rows of one time to reorder", file)
		}
		// Two rows of one time swapped (the first such pair), and one count
		// changed within what the row checks allow.
		swapped, counted := "", ""
		for i := 1; i < n && swapped == ""; i++ {
			if a, b := rows[i-1], rows[i]; strings.SplitN(a, ",", 3)[:2][1] == strings.SplitN(b, ",", 3)[:2][1] && a != b {
				r := slices.Clone(rows)
				r[i-1], r[i] = b, a
				swapped = csvJoin(header, r)
			}
		}
		for i := n / 2; i < n && counted == ""; i++ {
			f := strings.Split(rows[i], ",")
			last := len(f) - 1 // series: gateway_backoff, raised by one; batches: done, raised to started
			if file == "batches.csv" {
				if f[last] == f[last-1] {
					continue
				}
				f[last] = f[last-1]
			} else {
				v, _ := strconv.Atoi(f[last])
				f[last] = strconv.Itoa(v + 1)
			}
			r := slices.Clone(rows)
			r[i] = strings.Join(f, ",")
			counted = csvJoin(header, r)
		}
		if swapped == "" || counted == "" {
			t.Fatalf("%s: no two rows of one time, or no count to change", file)
		}
		cases = append(cases,
			row("cut at a line boundary (half its rows)", file, func(string) string { return csvJoin(header, rows[:n/2]) }, rowsMsg(file, n/2)),
			row("last row dropped", file, func(string) string { return csvJoin(header, rows[:n-1]) }, rowsMsg(file, n-1)),
			row("cut to its header", file, func(string) string { return header + "\n" }, rowsMsg(file, 0)),
			row("seed 2's rows spliced in time order", file, func(string) string { return spliced }, rowsMsg(file, len(splicedRows))),
			row("seed 2's file", file, func(string) string { return theirs }, "summary.json records"),
			row("rows of one time reordered", file, func(string) string { return reordered }, "digest mismatch: sha256 ", ", summary.json records "+recorded[file].SHA256+": "+changed),
			row("two rows of one time swapped", file, func(string) string { return swapped }, "digest mismatch", changed),
			row("CRLF line ends", file, func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }, "digest mismatch", changed),
			row("a blank line inserted", file, func(string) string { return csvJoin(header, slices.Insert(slices.Clone(rows), n/2, "")) }, "digest mismatch", changed),
			row("a count changed", file, func(string) string { return counted }, "digest mismatch", changed),
		)
	}
	// summary.json's record of the files.
	editFiles := func(name string, f func(files []results.RowFile) []results.RowFile, file string, want ...string) rcase {
		return rcase{name: "summary.json " + name, file: "summary.json", named: file, want: want, edit: func(s string) string {
			var m map[string]any
			if err := json.Unmarshal([]byte(s), &m); err != nil {
				t.Fatal(err)
			}
			files := f(slices.Clone(goodSummary.Files))
			if files == nil {
				delete(m, "files")
			} else {
				m["files"] = files
			}
			b, _ := json.MarshalIndent(m, "", "  ")
			return string(b) + "\n"
		}}
	}
	cases = append(cases,
		editFiles("without files", func([]results.RowFile) []results.RowFile { return nil }, "summary.json", "files: no record of series.csv"),
		editFiles("series rows one more", func(f []results.RowFile) []results.RowFile { f[0].Rows++; return f }, "series.csv", fmt.Sprintf("rows: want %d (as summary.json records), have %d", recorded["series.csv"].Rows+1, recorded["series.csv"].Rows)),
		editFiles("series digest of seed 2's", func(f []results.RowFile) []results.RowFile { f[0].SHA256 = otherSummary.Files[0].SHA256; return f }, "series.csv", "digest mismatch", changed),
		editFiles("batches record of seed 2's", func(f []results.RowFile) []results.RowFile { f[1] = otherSummary.Files[1]; return f }, "batches.csv", "summary.json records"),
		editFiles("files of seed 2's", func([]results.RowFile) []results.RowFile { return otherSummary.Files }, "series.csv", "summary.json records"),
	)
	for i, tc := range cases {
		for _, cmd := range []string{"report", "quota-check"} {
			t.Run(fmt.Sprintf("%02d %s %s %s", i, cmd, tc.file, tc.name), func(t *testing.T) {
				t.Parallel()
				dir := filepath.Join(t.TempDir(), "run")
				copyTree(t, good, dir)
				p := filepath.Join(dir, tc.file)
				edited := tc.edit(read(dir, tc.file))
				if edited == read(dir, tc.file) {
					t.Fatal("the edit changed nothing")
				}
				if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
					t.Fatal(err)
				}
				before := treeOf(t, filepath.Dir(dir))
				_, stderr, code := runSimHere(t, cmd, "--in", dir)
				if code != exitError || strings.Contains(stderr, "panic") {
					t.Errorf("exit %d, want 1; %s", code, stderr)
				}
				line := firstLine(stderr)
				named := tc.named
				if named == "" {
					named = tc.file
				}
				named = filepath.Join(dir, named)
				if !strings.HasPrefix(line, "sim: "+named+": ") && !strings.HasPrefix(line, "sim: report: "+named+": ") {
					t.Errorf("error does not start with %s: %s", named, line)
				}
				for _, w := range tc.want {
					if !strings.Contains(line, w) {
						t.Errorf("error lacks %q: %s", w, line)
					}
				}
				if diff := cmp.Diff(before, treeOf(t, filepath.Dir(dir))); diff != "" {
					t.Errorf("the folder changed (-before +after):\n%s", diff)
				}
			})
		}
	}
	t.Run("as written", func(t *testing.T) {
		for _, cmd := range []string{"report", "quota-check"} {
			dir := filepath.Join(t.TempDir(), "run")
			copyTree(t, good, dir)
			if _, stderr, code := runSim(t, cmd, "--in", dir); code != 0 {
				t.Errorf("%s: exit %d: %s", cmd, code, stderr)
			}
		}
	})
}
