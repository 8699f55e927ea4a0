package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"html/template"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/internal/plural"
)

// The pictures of the page are SVG written here as text. Every string
// that comes from the traces goes through esc.
func esc(s string) string { return html.EscapeString(s) }

// num writes a coordinate with at most one decimal.
func num(x float64) string { return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) }

// viridis is the heatmaps' colour scale, the control points fca's heatmaps
// use: dark blue through green to yellow, brighter for more similar (or,
// in JSM_D, more changed), readable in grey and by colour-blind readers.
var viridis = []uint32{0x440154, 0x482878, 0x3e4989, 0x31688e, 0x26828e, 0x1f9e89, 0x35b779, 0x6ece58, 0xb5de2b, 0xfde725}

// scaleColor returns the colour of v in [0, 1].
func scaleColor(v float64) color.RGBA {
	if math.IsNaN(v) {
		v = 0
	}
	v = min(max(v, 0), 1)
	x := v * float64(len(viridis)-1)
	i := min(int(x), len(viridis)-2)
	f := x - float64(i)
	a, b := viridis[i], viridis[i+1]
	mix := func(sh uint) uint8 {
		p, q := float64((a>>sh)&0xff), float64((b>>sh)&0xff)
		return uint8(math.Round(p + (q-p)*f))
	}
	return color.RGBA{R: mix(16), G: mix(8), B: mix(0), A: 255}
}

func hexColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// scalePalette is scaleColor at 256 steps, the palette of heatmap images.
var scalePalette = func() color.Palette {
	p := make(color.Palette, 256)
	for i := range p {
		p[i] = scaleColor(float64(i) / 255)
	}
	return p
}()

// panelPNG draws a side×side matrix one pixel per cell.
func panelPNG(values []float64, side int) string {
	img := image.NewPaletted(image.Rect(0, 0, side, side), scalePalette)
	for i, v := range values {
		if math.IsNaN(v) {
			v = 0
		}
		img.Pix[i] = uint8(math.Round(min(max(v, 0), 1) * 255))
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&b, img); err != nil {
		panic("report: encoding a heatmap: " + err.Error()) // writes to memory cannot fail
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

// Heatmap layout, in pixels.
const (
	hmPlot      = 280 // the matrix's side
	hmFont      = 9
	hmCharW     = 5.6 // width of a character of hmFont
	hmMaxLabels = 40  // every row labelled up to this side, else some
	hmValues    = 64  // matrices up to this side carry their values for the hover
)

// heatmapSVG draws panel p of h: the matrix as an image, the traces along
// the axes, the suspects marked.
func heatmapSVG(h *Heatmaps, p int) template.HTML {
	side := h.Side
	if side == 0 {
		return template.HTML(`<p class="empty">no traces</p>`)
	}
	step := 1
	if side > hmMaxLabels {
		step = (side + 15) / 16
	}
	longest := 0
	for i := 0; i < side; i += step {
		longest = max(longest, len([]rune(h.Labels[i])))
	}
	for _, m := range h.Marks {
		longest = max(longest, len([]rune(m.Label))+2)
	}
	longest = min(longest, 28)
	left := 8 + float64(longest)*hmCharW
	top := 22.0
	bottom := 8 + float64(longest)*hmCharW
	w := left + hmPlot + 10
	ht := top + hmPlot + bottom
	cell := float64(hmPlot) / float64(side)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="heatmap" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img" aria-label="%s" data-side="%d" data-x="%s" data-y="%s" data-plot="%d" data-labels="%s"`,
		num(w), num(ht), num(w), num(ht), esc(h.Panels[p].Title), side, num(left), num(top), hmPlot, esc(strings.Join(h.Labels, "|")))
	if side <= hmValues {
		vals := make([]string, len(h.Panels[p].Values))
		for i, v := range h.Panels[p].Values {
			vals[i] = strconv.FormatFloat(v, 'f', 2, 64)
		}
		fmt.Fprintf(&b, ` data-values="%s"`, strings.Join(vals, ","))
	}
	b.WriteString(">")
	fmt.Fprintf(&b, `<text x="%s" y="14" class="ptitle">%s</text>`, num(left), esc(h.Panels[p].Title))
	fmt.Fprintf(&b, `<image x="%s" y="%s" width="%d" height="%d" preserveAspectRatio="none" style="image-rendering:pixelated" href="%s"/>`,
		num(left), num(top), hmPlot, hmPlot, panelPNG(h.Panels[p].Values, side))
	fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%d" height="%d" class="frame"/>`, num(left), num(top), hmPlot, hmPlot)
	marked := map[int]bool{}
	for _, m := range h.Marks {
		marked[m.Index] = true
	}
	label := func(i int, text, class string) {
		y := top + (float64(i)+0.5)*cell
		x := left + (float64(i)+0.5)*cell
		t := clip(text, longest)
		fmt.Fprintf(&b, `<text x="%s" y="%s" class="%s" text-anchor="end" dominant-baseline="middle">%s</text>`, num(left-3), num(y), class, esc(t))
		fmt.Fprintf(&b, `<text transform="translate(%s %s) rotate(-90)" class="%s" text-anchor="end" dominant-baseline="middle">%s</text>`, num(x), num(top+hmPlot+7), class, esc(t))
	}
	for i := 0; i < side; i += step {
		if !marked[i] {
			label(i, h.Labels[i], "tick")
		}
	}
	for _, m := range h.Marks {
		y := top + (float64(m.Index)+0.5)*cell
		x := left + (float64(m.Index)+0.5)*cell
		fmt.Fprintf(&b, `<path d="M%s %sl-5 -3.5v7z" class="mark"/>`, num(left), num(y))
		fmt.Fprintf(&b, `<path d="M%s %sl-3.5 5h7z" class="mark"/>`, num(x), num(top+hmPlot))
		label(m.Index, "▸ "+m.Label, "tick marked")
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// legendSVG draws the colour scale the heatmaps share.
func legendSVG() template.HTML {
	var b strings.Builder
	const w, barH, barW, x0 = 300.0, 12.0, 260.0, 20.0
	fmt.Fprintf(&b, `<svg class="legend" xmlns="http://www.w3.org/2000/svg" width="%s" height="42" viewBox="0 0 %s 42" role="img" aria-label="colour scale from 0 to 1">`, num(w), num(w))
	b.WriteString(`<defs><linearGradient id="scale">`)
	for i := range 11 {
		v := float64(i) / 10
		fmt.Fprintf(&b, `<stop offset="%s" stop-color="%s"/>`, num(v), hexColor(scaleColor(v)))
	}
	b.WriteString(`</linearGradient></defs>`)
	fmt.Fprintf(&b, `<rect x="%s" y="4" width="%s" height="%s" fill="url(#scale)" stroke="#555" stroke-width="0.6"/>`, num(x0), num(barW), num(barH))
	for i := range 5 {
		v := float64(i) / 4
		x := x0 + v*barW
		fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s" class="axis"/>`, num(x), num(x), num(4+barH), num(8+barH))
		fmt.Fprintf(&b, `<text x="%s" y="%s" class="tick" text-anchor="middle">%s</text>`, num(x), num(18+barH), strconv.FormatFloat(v, 'f', -1, 64))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// clusterColors tell flat clusters apart (Tableau 10).
var clusterColors = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

func clusterColor(c int) string {
	if c <= 0 {
		return "#888888"
	}
	return clusterColors[(c-1)%len(clusterColors)]
}

// Dendrogram layout, in pixels.
const (
	dgRow   = 15
	dgPlot  = 300
	dgFont  = 10
	dgCharW = 6.0
	dgLabel = 36 // characters of a leaf's label
)

// dendrogramSVG draws dg with the leaves on the left, the merges' heights
// growing to the right, each flat cluster in its colour and the cut as a
// dashed line.
func dendrogramSVG(dg *Dendrogram) template.HTML {
	n := len(dg.Leaves)
	if n == 0 {
		return template.HTML(`<p class="empty">no traces</p>`)
	}
	order := dg.Order()
	longest := 0
	for _, l := range dg.Leaves {
		longest = max(longest, len([]rune(leafText(l))))
	}
	longest = min(longest, dgLabel)
	left := 18 + float64(longest)*dgCharW + 8
	top := 44.0
	w := left + dgPlot + 20
	ht := top + float64(n)*dgRow + 30
	maxH := 0.0
	for _, m := range dg.Merges {
		maxH = max(maxH, m.Height)
	}
	if maxH <= 0 {
		maxH = 1
	}
	xOf := func(h float64) float64 { return left + h/maxH*dgPlot }
	ys := make([]float64, n+len(dg.Merges))
	hs := make([]float64, n+len(dg.Merges))
	cl := make([]int, n+len(dg.Merges))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="dendrogram" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img" aria-label="%s">`,
		num(w), num(ht), num(w), num(ht), esc(dg.Title))
	fmt.Fprintf(&b, `<text x="4" y="14" class="ptitle">%s</text>`, esc(dg.Title))
	for row, leaf := range order {
		y := top + (float64(row)+0.5)*dgRow
		ys[leaf] = y
		cl[leaf] = dg.Leaves[leaf].Cluster
		l := dg.Leaves[leaf]
		fmt.Fprintf(&b, `<g class="leaf"><title>%s: %d trace%s, cluster %d</title><rect x="4" y="%s" width="9" height="9" fill="%s"/><text x="18" y="%s" class="label" dominant-baseline="middle">%s</text></g>`,
			esc(clip(l.Traces, 240)), l.Count, plural.Word(l.Count, "", "s"), l.Cluster, num(y-4.5), clusterColor(l.Cluster), num(y), esc(clip(leafText(l), longest)))
	}
	for i, m := range dg.Merges {
		x := n + i
		ys[x] = (ys[m.A] + ys[m.B]) / 2
		hs[x] = m.Height
		cl[x] = m.Cluster
		px := xOf(m.Height)
		for _, c := range []int{m.A, m.B} {
			col := clusterColor(cl[c])
			if c >= n && cl[c] == 0 {
				col = clusterColor(0)
			}
			fmt.Fprintf(&b, `<path d="M%s %sH%s" stroke="%s" class="branch"/>`, num(xOf(hs[c])), num(ys[c]), num(px), col)
		}
		fmt.Fprintf(&b, `<path d="M%s %sV%s" stroke="%s" class="branch"><title>height %s</title></path>`, num(px), num(ys[m.A]), num(ys[m.B]), clusterColor(m.Cluster), strconv.FormatFloat(m.Height, 'g', 4, 64))
	}
	axisY := top + float64(n)*dgRow + 6
	fmt.Fprintf(&b, `<path d="M%s %sH%s" class="axis"/>`, num(left), num(axisY), num(left+dgPlot))
	for i := range 5 {
		h := maxH * float64(i) / 4
		x := xOf(h)
		fmt.Fprintf(&b, `<path d="M%s %sv4" class="axis"/><text x="%s" y="%s" class="tick" text-anchor="middle">%s</text>`,
			num(x), num(axisY), num(x), num(axisY+14), strconv.FormatFloat(h, 'g', 3, 64))
	}
	if dg.Cut >= 0 {
		x := xOf(dg.Cut)
		fmt.Fprintf(&b, `<path d="M%s %sV%s" class="cut"/><text x="%s" y="%s" class="cutlabel">cut: %d cluster%s</text>`,
			num(x), num(top-8), num(axisY), num(x+3), num(top-10), dg.Clusters, plural.Word(dg.Clusters, "", "s"))
	}
	if dg.Clusters < min(dg.K, n) {
		// MaxClust cuts merges at one height together.
		fmt.Fprintf(&b, `<text x="%s" y="%s" class="cutlabel" text-anchor="end">k = %d gives %d cluster%s: merges at one height are cut together</text>`,
			num(w-4), num(top-22), dg.K, dg.Clusters, plural.Word(dg.Clusters, "", "s"))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func leafText(l Leaf) string {
	if l.Count == 1 {
		return l.Traces
	}
	return fmt.Sprintf("%s (%d)", l.Traces, l.Count)
}

// clip cuts s to n characters, ending in "…" when it cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Lattice layout, in pixels.
const (
	ltFont   = 10
	ltCharW  = 6.0
	ltLine   = 13
	ltGapX   = 18
	ltGapY   = 34
	ltMaxTxt = 44 // characters of a line in a concept's box
	ltMaxRow = 8  // concepts side by side
)

// latticeSVG draws l as a Hasse diagram: each concept on the level of its
// longest path from the top, levels ordered to cross few edges (a few
// sweeps of the barycentre heuristic), its new attributes on blue and its
// traces on yellow, as fca's pictures show them.
func latticeSVG(l *Lattice) template.HTML {
	n := len(l.Concepts)
	lv := l.levels()
	depth := 0
	for _, x := range lv {
		depth = max(depth, x+1)
	}
	rows := make([][]int, depth)
	for k := range n {
		rows[lv[k]] = append(rows[lv[k]], k)
	}
	parents := make([][]int, n)
	for k, c := range l.Concepts {
		for _, ch := range c.Children {
			parents[ch] = append(parents[ch], k)
		}
	}
	// Box sizes.
	type box struct {
		w, h  float64
		lines []string
		attrs int // lines that are attributes
		dot   bool
	}
	boxes := make([]box, n)
	for k, c := range l.Concepts {
		var bx box
		for _, a := range c.Attrs {
			bx.lines = append(bx.lines, clip(a, ltMaxTxt))
		}
		if c.MoreAttrs > 0 {
			bx.lines = append(bx.lines, fmt.Sprintf("… and %d more", c.MoreAttrs))
		}
		bx.attrs = len(bx.lines)
		if c.Traces != "" {
			bx.lines = append(bx.lines, clip(c.Traces, ltMaxTxt))
		}
		if len(bx.lines) == 0 {
			bx.dot, bx.w, bx.h = true, 10, 10
		} else {
			longest := 0
			for _, s := range bx.lines {
				longest = max(longest, len([]rune(s)))
			}
			bx.w = float64(longest)*ltCharW + 10
			bx.h = float64(len(bx.lines))*ltLine + 6
		}
		boxes[k] = bx
	}
	// Order within levels: by barycentre of the parents' places going
	// down, of the children's going up.
	pos := make([]float64, n)
	place := func() {
		for _, r := range rows {
			for i, k := range r {
				pos[k] = float64(i) / float64(max(len(r), 1))
			}
		}
	}
	place()
	bary := func(ns []int) (float64, bool) {
		if len(ns) == 0 {
			return 0, false
		}
		s := 0.0
		for _, x := range ns {
			s += pos[x]
		}
		return s / float64(len(ns)), true
	}
	sortRow := func(r []int, key func(int) []int) {
		keys := make(map[int]float64, len(r))
		for _, k := range r {
			if v, ok := bary(key(k)); ok {
				keys[k] = v
			} else {
				keys[k] = pos[k]
			}
		}
		stableSortBy(r, func(k int) float64 { return keys[k] })
	}
	for range 4 {
		for d := 1; d < depth; d++ {
			sortRow(rows[d], func(k int) []int { return parents[k] })
			place()
		}
		for d := depth - 2; d >= 0; d-- {
			sortRow(rows[d], func(k int) []int { return l.Concepts[k].Children })
			place()
		}
	}
	// A level of more concepts than fit side by side is drawn on several
	// lines, in its order.
	var lines [][]int
	for _, r := range rows {
		for len(r) > ltMaxRow {
			lines = append(lines, r[:ltMaxRow])
			r = r[ltMaxRow:]
		}
		lines = append(lines, r)
	}
	// Coordinates: each line centred on the widest.
	widest := 0.0
	for _, r := range lines {
		w := 0.0
		for i, k := range r {
			if i > 0 {
				w += ltGapX
			}
			w += boxes[k].w
		}
		widest = max(widest, w)
	}
	xs, ys := make([]float64, n), make([]float64, n)
	y := 30.0
	for _, r := range lines {
		w, h := 0.0, 0.0
		for i, k := range r {
			if i > 0 {
				w += ltGapX
			}
			w += boxes[k].w
			h = max(h, boxes[k].h)
		}
		x := 10 + (widest-w)/2
		for _, k := range r {
			xs[k] = x + boxes[k].w/2
			ys[k] = y + boxes[k].h/2
			x += boxes[k].w + ltGapX
		}
		y += h + ltGapY
	}
	width := widest + 20
	height := y - ltGapY + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="lattice" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img" aria-label="%s">`,
		num(width), num(height), num(width), num(height), esc(l.Title))
	fmt.Fprintf(&b, `<text x="4" y="14" class="ptitle">%s</text>`, esc(l.Title))
	for k, c := range l.Concepts {
		for _, ch := range c.Children {
			fmt.Fprintf(&b, `<path d="M%s %sL%s %s" class="edge"/>`, num(xs[k]), num(ys[k]+boxes[k].h/2), num(xs[ch]), num(ys[ch]-boxes[ch].h/2))
		}
	}
	for k, c := range l.Concepts {
		bx := boxes[k]
		tip := fmt.Sprintf("%d trace%s, %d attribute%s", c.Extent, plural.Word(c.Extent, "", "s"), c.Intent, plural.Word(c.Intent, "", "s"))
		if bx.dot {
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="4" class="dot"><title>%s</title></circle>`, num(xs[k]), num(ys[k]), tip)
			continue
		}
		x0, y0 := xs[k]-bx.w/2, ys[k]-bx.h/2
		fmt.Fprintf(&b, `<g class="concept"><title>%s</title>`, tip)
		if bx.attrs > 0 {
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" class="attrs"/>`, num(x0), num(y0), num(bx.w), num(float64(bx.attrs)*ltLine+3))
		}
		if bx.attrs < len(bx.lines) {
			yt := y0 + float64(bx.attrs)*ltLine
			if bx.attrs > 0 {
				yt += 3
			}
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" class="objs"/>`, num(x0), num(yt), num(bx.w), num(y0+bx.h-yt))
		}
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" class="box"/>`, num(x0), num(y0), num(bx.w), num(bx.h))
		for i, s := range bx.lines {
			yl := y0 + 3 + (float64(i)+0.5)*ltLine
			if i >= bx.attrs && bx.attrs > 0 {
				yl += 3
			}
			fmt.Fprintf(&b, `<text x="%s" y="%s" class="label" dominant-baseline="middle">%s</text>`, num(x0+5), num(yl), esc(s))
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// stableSortBy sorts r by key, keeping the order of equal keys.
func stableSortBy(r []int, key func(int) float64) {
	for i := 1; i < len(r); i++ {
		for j := i; j > 0 && key(r[j]) < key(r[j-1]); j-- {
			r[j], r[j-1] = r[j-1], r[j]
		}
	}
}
