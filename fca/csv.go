package fca

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// WriteCSV writes the panels' matrices as CSV: a header row of trace labels
// (the first panel's), then one row per trace of each panel; values have up
// to 6 decimals. With named set, a first column names the matrix of each row
// (the first word of its panel's title), so several matrices share one table.
func WriteCSV(w io.Writer, named bool, panels ...Panel) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for pi, p := range panels {
		if pi == 0 {
			if named {
				bw.WriteString("matrix,")
			}
			bw.WriteString("trace")
			for _, l := range p.Labels {
				bw.WriteString("," + l)
			}
			bw.WriteByte('\n')
		}
		var name string
		if named {
			name = strings.Fields(p.Title)[0]
		}
		for a, l := range p.Labels {
			if named {
				bw.WriteString(name + ",")
			}
			bw.WriteString(l)
			for b := range p.Labels {
				v := p.M.At(a, b)
				buf = strconv.AppendFloat(buf[:0], v, 'f', -1, 64)
				if len(buf) > 8 {
					buf = strconv.AppendFloat(buf[:0], v, 'f', 6, 64)
				}
				bw.WriteByte(',')
				bw.Write(buf)
			}
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}
