package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/rank"
)

//go:embed page.html.tmpl
var pageTemplate string

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"heatmap":    heatmapSVG,
	"legend":     legendSVG,
	"dendrogram": func(d Dendrogram) template.HTML { return dendrogramSVG(&d) },
	"lattice":    latticeSVG,
	"score":      func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) },
	"exact":      func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) },
	"ids":        suspectIDs,
	"join":       strings.Join,
	"ints":       joinInts,
	"thousands":  thousands,
	"add":        func(a, b int) int { return a + b },
	"distinct":   distinct,
	"css":        func() template.CSS { return template.CSS(pageCSS) },
	"js":         func() template.JS { return template.JS(pageJS) },
}).Parse(pageTemplate))

// writeHTML writes the page.
func (rpt *Report) writeHTML(w io.Writer, _ Options) error {
	return page.Execute(w, rpt)
}

func (*Report) defaultFormat() Format { return HTML }

func (*Report) name() string { return "the report page" }

// suspectIDs lists suspects as the rank table does: "5, 4, +3", "-" for
// none.
func suspectIDs(ss []rank.Suspect, more int) string {
	if len(ss) == 0 {
		return "-"
	}
	var parts []string
	for _, s := range ss {
		parts = append(parts, s.ID.String())
	}
	if more > 0 {
		parts = append(parts, fmt.Sprintf("+%d", more))
	}
	return strings.Join(parts, ", ")
}

func joinInts(ks []int) string {
	var s []string
	for _, k := range ks {
		s = append(s, strconv.Itoa(k))
	}
	return strings.Join(s, ",")
}

// distinct lists the values of one column of the rows ("filter", "k",
// "attrs", "linkage") in their first order, for the table's filters.
func distinct(rows []Row, col string) []string {
	var out []string
	for _, r := range rows {
		var v string
		switch col {
		case "filter":
			v = r.Filter
		case "k":
			v = strconv.Itoa(r.K)
		case "attrs":
			v = r.Attrs
		case "linkage":
			v = r.Linkage
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
