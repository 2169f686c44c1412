package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/evalsched/lab/scenario"
	"github.com/urfave/cli/v2"
)

// scenarioInfo is one embedded scenario in `sim scenarios`.
type scenarioInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"` // whole, on one line (the table shows its first sentence)
	Variants    []string `json:"variants"`
}

func scenariosCommand() *cli.Command {
	return &cli.Command{
		Name:      "scenarios",
		Usage:     "list the embedded scenarios (a line each: name, what it is, its variants), or print one with --show NAME",
		UsageText: "sim scenarios [--json] [--show NAME]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "show", Usage: "print this embedded scenario's YAML"},
			&cli.BoolFlag{Name: "json", Usage: "print the list as JSON (name, description, variants)"},
		},
		Action: func(c *cli.Context) error {
			if name := c.String("show"); name != "" {
				data, err := scenario.EmbeddedYAML(name)
				if err != nil {
					return err
				}
				_, err = c.App.Writer.Write(data)
				return err
			}
			var list []scenarioInfo
			for _, n := range scenario.EmbeddedNames() {
				sc, err := scenario.LoadScenario("embedded:" + n)
				if err != nil {
					return err
				}
				v := sc.VariantNames()
				if v == nil {
					v = []string{}
				}
				list = append(list, scenarioInfo{Name: n, Description: strings.Join(strings.Fields(sc.Description), " "), Variants: v})
			}
			if c.Bool("json") {
				data, err := json.MarshalIndent(list, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(c.App.Writer, "%s\n", data)
				return err
			}
			tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "scenario\tdescription\tvariants")
			for _, s := range list {
				v := "-"
				if len(s.Variants) > 0 {
					v = strings.Join(s.Variants, ", ")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, firstSentence(s.Description), v)
			}
			return tw.Flush()
		},
	}
}

// firstSentence is a description's first sentence on one line, cut at a
// word to at most 110 characters ("…" where cut).
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, ".")
	if r := []rune(s); len(r) > 110 {
		cut := string(r[:110])
		if i := strings.LastIndex(cut, " "); i > 0 {
			cut = cut[:i]
		}
		s = strings.TrimRight(cut, ",;:") + "…"
	}
	return s
}
