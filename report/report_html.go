package report

import (
	"bytes"
	"html/template"
	"strings"
)

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{"slug": slug}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2rem auto; max-width: 1200px; padding: 0 1rem; color: #222; line-height: 1.4; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
table { border-collapse: collapse; font-size: .85rem; margin: 0; }
th, td { border: 1px solid #ddd; padding: .2rem .45rem; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; position: sticky; top: 0; z-index: 1; }
td:first-child, th:first-child { text-align: left; position: sticky; left: 0; background: #fff; }
th:first-child { background: #f3f3f3; z-index: 2; }
tr.total td { font-weight: bold; background: #fafafa; }
.facts td { text-align: left; white-space: normal; } .facts td:first-child { color: #555; position: static; }
.scroll { display: block; max-width: 100%; max-height: 32rem; overflow: auto; margin: .5rem 0 1rem; }
.note { color: #555; font-size: .85rem; max-width: 60rem; }
.verdict { border: 2px solid #0072B2; border-radius: 6px; padding: .6rem 1rem .2rem; margin: 1rem 0 1.5rem; background: #f5f9fc; }
.verdict h2 { margin-top: .2rem; border: none; } .verdict .reading { font-size: 1.05rem; font-weight: 600; }
.verdict td:first-child, .verdict th:first-child { background: #f5f9fc; }
.verdict td, .verdict th { white-space: normal; }
figure { margin: 1.5rem 0 2.5rem; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: .9rem; color: #333; max-width: 70rem; }
.problem { color: #a00; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{with .Verdict}}<section class="verdict" id="verdict">
<h2>{{.Table.Title}}</h2>
{{if .Reading}}<p class="reading">{{.Reading}}</p>{{end}}
{{if .Detail}}<p class="detail">{{.Detail}}</p>{{end}}
{{template "table" .Table}}
</section>{{end}}
<div class="scroll"><table class="facts">
{{range .Facts}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table></div>
{{range .Problems}}<p class="problem">{{.}}</p>
{{end}}
<nav><p><a href="#verdict">Verdict</a> · {{range .Tables}}<a href="#{{slug .Title}}">{{.Title}}</a> · {{end}}<a href="#figures">Figures</a></p></nav>
{{range .Tables}}
<h2 id="{{slug .Title}}">{{.Title}}</h2>
{{template "table" .}}
{{end}}
<h2 id="figures">Figures</h2>
{{range .Figures}}
<figure id="fig-{{.Name}}">
{{.Img}}
<figcaption><b>{{.Title}}.</b> {{.Caption}}</figcaption>
</figure>
{{end}}
</body>
</html>
{{define "table"}}{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
{{if or .Rows .Total}}<div class="scroll"><table>
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}{{if .Total}}<tr class="total">{{range .Total}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>{{end}}{{end}}
`))

func (r *report) html() ([]byte, error) {
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// slug is an HTML id made of s: lower case letters, digits and dashes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
