package report

import (
	"testing"

	"github.com/difftrace/difftrace/decode"
)

// statsDoc counts the traces of a committed run as "difftrace stats" does.
func statsDoc(t *testing.T, dir string, level decode.Level, edges, signatures bool, top int) *Stats {
	t.Helper()
	run := infoOpen(t, dir, signatures)
	ids := run.Traces()
	stats, err := run.Summarize(ids, edges)
	if err != nil {
		t.Fatal(err)
	}
	return NewStats(run.Dir, decode.GroupStats(ids, stats, level), level, run, edges, top)
}

func TestStatsGolden(t *testing.T) {
	dl := statsDoc(t, "runs/oddeven-dlbug", decode.ByProcess, true, false, 0)
	infoGolden(t, "stats-oddeven-dlbug.txt", dl, Options{})
	infoGolden(t, "stats-oddeven-dlbug.csv", dl, Options{Format: CSV})
	infoGolden(t, "stats-oddeven-dlbug.json", dl, Options{Format: JSON})
	prog := statsDoc(t, "runs/stencil-skipbug", decode.ByProgram, true, true, 12)
	infoGolden(t, "stats-stencil-skipbug.txt", prog, Options{})
	infoGolden(t, "stats-stencil-skipbug.csv", prog, Options{Format: CSV})
	th := statsDoc(t, "runs/ilcs-critbug", decode.ByThread, false, false, 2)
	infoGolden(t, "stats-ilcs-critbug.txt", th, Options{})
	infoGolden(t, "stats-ilcs-critbug.json", th, Options{Format: JSON})
}

// stats writes no HTML: Write says which formats it has.
func TestStatsFormats(t *testing.T) {
	err := Write(nil, &Stats{}, Options{Format: HTML})
	if err == nil || err.Error() != "report: the call counts: no html form (want one of [text json csv])" {
		t.Errorf("Write(html) = %v", err)
	}
}
