package yamltree

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestSyntaxLine: each broken document's error, after SyntaxLine, names
// the line marked with "# here" (the line the fault, or the collection at
// fault, is on).
func TestSyntaxLine(t *testing.T) {
	re := regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	for _, doc := range []string{
		"a: 1\nb: [1, 2 # here\nc: 3\n",
		"a: 1\nb: {x: 1 # here\nc: 3\n",
		"a: 1\nb:\n  c: 1\n d: 2 # here\n",
		"a: 1\nb: c: d # here\n",
		"a: 1\n\tb: 2 # here\n",
		"a:\n  - 1 # here: the list at fault opens\n  x: 2\n",
	} {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(doc), &n)
		if err == nil {
			t.Fatalf("%q parsed", doc)
		}
		m := re.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("%q: %v", doc, err)
		}
		line, _ := strconv.Atoi(m[1])
		want := 0
		for i, l := range strings.Split(doc, "\n") {
			if strings.Contains(l, "# here") {
				want = i + 1
			}
		}
		if got := SyntaxLine(line, m[2]); got != want {
			t.Errorf("%q: %v: line %d, want %d", doc, err, got, want)
		}
	}
}
