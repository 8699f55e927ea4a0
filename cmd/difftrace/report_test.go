package main

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rankedPair is what the report tests need of a pair's ranking: rank's
// JSON.
type rankedPair struct {
	Rows []struct {
		Filter    string                `json:"filter"`
		K         int                   `json:"k"`
		Attrs     string                `json:"attrs"`
		Linkage   string                `json:"linkage"`
		BScore    float64               `json:"bscore"`
		Threads   []struct{ ID string } `json:"top_threads"`
		Processes []struct{ ID string } `json:"top_processes"`
	} `json:"rows"`
	Suggestion *struct {
		Trace  string `json:"trace"`
		Filter string `json:"filter"`
		K      int    `json:"k"`
	} `json:"suggestion"`
}

// pageRow matches a row of the page's ranking table.
var pageRow = regexp.MustCompile(`<tr tabindex="0" data-row="(\d+)" data-filter="([^"]*)" data-k="(\d+)" data-attrs="([^"]*)" data-linkage="([^"]*)" data-bscore="([^"]*)" data-combo="(-?\d+)" data-threads="([^"]*)" data-processes="([^"]*)"`)

// TestReportSameNumbersAsRank checks that the page shows the ranking
// "difftrace rank --format json" gives for the same pair: every row in the
// same order with the same B-score and the same first suspects, and the
// suggested trace as the verdict, whose first-difference line is the one
// "difftrace diffnlr" prints for it after rank.
func TestReportSameNumbersAsRank(t *testing.T) {
	for _, p := range []struct{ normal, faulty, extra string }{
		{"oddeven-normal", "oddeven-swapbug", ""},
		{"stencil-normal", "stencil-skipbug", ""},
		{"ilcs-normal", "ilcs-critbug", "--filters=omp,mem+omp.crit,all"},
	} {
		t.Run(p.faulty, func(t *testing.T) {
			dir := t.TempDir()
			normal, err := filepath.Abs(filepath.Join(runsDir, p.normal))
			if err != nil {
				t.Fatal(err)
			}
			faulty, _ := filepath.Abs(filepath.Join(runsDir, p.faulty))
			args := []string{normal, faulty}
			if p.extra != "" {
				args = append(args, p.extra)
			}
			r := difftraceAt(t, dir, nil, append([]string{"rank", "--format", "json"}, args...)...)
			if r.code != 0 {
				t.Fatalf("rank: %s", r.stderr)
			}
			var rk rankedPair
			if err := json.Unmarshal(r.stdout, &rk); err != nil {
				t.Fatal(err)
			}
			page := filepath.Join(dir, "report.html")
			out := ok(t, append(append([]string{"report"}, args...), "-o", page)...)
			if out != "" {
				t.Errorf("report -o wrote to standard output: %q", out)
			}
			b := mustRead(t, page)
			rows := pageRow.FindAllSubmatch(b, -1)
			at := pageRow.FindAllIndex(b, -1)
			if len(rows) != len(rk.Rows) {
				t.Fatalf("the page has %d rows, rank %d", len(rows), len(rk.Rows))
			}
			for i, m := range rows {
				want := rk.Rows[i]
				bs, err := strconv.ParseFloat(string(m[6]), 64)
				if err != nil {
					t.Fatal(err)
				}
				got := []string{string(m[1]), html.UnescapeString(string(m[2])), string(m[3]), string(m[4]), string(m[5])}
				if !slices.Equal(got, []string{strconv.Itoa(i), want.Filter, strconv.Itoa(want.K), want.Attrs, want.Linkage}) || bs != want.BScore {
					t.Errorf("row %d: page %v, B-score %v; rank %s %d %s %s %v", i, got, bs, want.Filter, want.K, want.Attrs, want.Linkage, want.BScore)
				}
				var ths, prs []string
				for _, s := range want.Threads[:min(5, len(want.Threads))] {
					ths = append(ths, s.ID)
				}
				for _, s := range want.Processes[:min(5, len(want.Processes))] {
					prs = append(prs, s.ID)
				}
				if th := string(m[8]); th != orDash(strings.Join(ths, ", ")) {
					t.Errorf("row %d: top threads %q on the page, %v by rank", i, th, ths)
				}
				if pr := string(m[9]); pr != orDash(strings.Join(prs, ", ")) {
					t.Errorf("row %d: top processes %q on the page, %v by rank", i, pr, prs)
				}
				// The B-score as the table shows it, too.
				tr := b[at[i][0]:]
				tr = tr[:strings.Index(string(tr), "</tr>")]
				if cell := regexp.MustCompile(`<td class="num" data-value="` + regexp.QuoteMeta(string(m[6])) + `">([0-9.]+)</td><td class="ids">`).FindSubmatch(tr); cell == nil || string(cell[1]) != strconv.FormatFloat(want.BScore, 'f', 3, 64) {
					t.Errorf("row %d: no B-score cell reading %.3f", i, want.BScore)
				}
			}
			if rk.Suggestion == nil {
				t.Fatal("rank suggests no diffNLR")
			}
			v := regexp.MustCompile(`<section id="verdict" class="verdict" data-suspect="([^"]*)">`).FindSubmatch(b)
			if v == nil || string(v[1]) != rk.Suggestion.Trace {
				t.Fatalf("verdict %q, want rank's suggestion %s", v, rk.Suggestion.Trace)
			}
			// rank left its session in dir: diffnlr follows it.
			d := difftraceAt(t, dir, nil, "diffnlr", rk.Suggestion.Trace)
			if d.code != 0 {
				t.Fatalf("diffnlr: %s", d.stderr)
			}
			var first string
			for _, l := range strings.Split(string(d.stdout), "\n") {
				if strings.HasPrefix(l, "first difference") {
					first = l
					break
				}
			}
			if first == "" {
				t.Fatalf("diffnlr printed no first difference:\n%s", d.stdout)
			}
			if !strings.Contains(string(b), `<p class="first">`+html.EscapeString(first)+`</p>`) {
				t.Errorf("the verdict lacks diffnlr's line %q", first)
			}
			if !strings.Contains(string(b), html.EscapeString("difftrace diffnlr "+rk.Suggestion.Trace+" --normal "+normal+" --faulty "+faulty)) {
				t.Error("the page lacks the command of the suggested diffNLR")
			}
		})
	}
}

// TestReportJSON: -o *.json writes the report's values.
func TestReportJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	ok(t, "report", filepath.Join(runsDir, "oddeven-normal"), filepath.Join(runsDir, "oddeven-swapbug"), "--filters", "mpi", "--linkage", "ward", "-o", out)
	var rpt struct {
		Verdict struct{ Suspect string }
		Rows    []struct{ Combination int }
		Diffs   []struct{ Trace string }
	}
	if err := json.Unmarshal(mustRead(t, out), &rpt); err != nil {
		t.Fatal(err)
	}
	if rpt.Verdict.Suspect != "5" || len(rpt.Rows) != 6 || rpt.Rows[0].Combination != 0 || len(rpt.Diffs) == 0 || rpt.Diffs[0].Trace != "5" {
		t.Errorf("%+v; want suspect 5, 6 rows all precomputed, the diff of 5 first", rpt)
	}
}

// TestReportSuspectShare: --suspect-share moves the cut of each row's
// suspects, and the page's commands repeat it; with a share of 1 only the
// traces with the row's highest score are suspects.
func TestReportSuspectShare(t *testing.T) {
	type page struct {
		Rows []struct {
			Threads []struct{ Score float64 }
		}
		Commands []struct{ Line string }
	}
	read := func(share string) page {
		t.Helper()
		out := filepath.Join(t.TempDir(), "r.json")
		args := []string{"report", filepath.Join(runsDir, "oddeven-normal"), filepath.Join(runsDir, "oddeven-dlbug"), "--filters", "mpi,all", "--linkage", "ward", "-o", out}
		if share != "" {
			args = append(args, "--suspect-share", share)
		}
		ok(t, args...)
		var p page
		if err := json.Unmarshal(mustRead(t, out), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	def, top := read(""), read("1")
	fewer := false
	for i, r := range top.Rows {
		for _, s := range r.Threads {
			if s.Score != r.Threads[0].Score {
				t.Errorf("--suspect-share 1, row %d: a suspect below the top score: %+v", i, r.Threads)
			}
		}
		fewer = fewer || len(r.Threads) < len(def.Rows[i].Threads)
	}
	if !fewer {
		t.Error("--suspect-share 1 lists as many suspects as the default in every row")
	}
	has := func(p page, s string) bool {
		return slices.ContainsFunc(p.Commands, func(c struct{ Line string }) bool { return strings.Contains(c.Line, s) })
	}
	if !has(top, "--suspect-share 1") || has(def, "--suspect-share") {
		t.Errorf("the commands repeat --suspect-share only when given:\n%+v\n%+v", top.Commands, def.Commands)
	}
}

// TestReportRefusesBadFlags: the flags are checked before anything is
// read or written.
func TestReportRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	n, f := filepath.Join(runsDir, "oddeven-normal"), filepath.Join(runsDir, "oddeven-swapbug")
	fails(t, []string{"--rows and --diffs"}, "report", n, f, "--rows", "-1", "-o", out)
	fails(t, []string{"--linkage"}, "report", n, f, "--linkage", "nearest", "-o", out)
	fails(t, []string{"one run directory, or two"}, "report", n, f, f, "-o", out)
	fails(t, []string{"--suspect-share 0: want a share of the highest score above 0 and at most 1"}, "report", n, f, "--suspect-share", "0", "-o", out)
	fails(t, []string{"--suspect-share 1.5"}, "report", n, f, "--suspect-share", "1.5", "-o", out)
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed report wrote its output")
	}
}

// TestReportOfNamesWithControlCharacters: names and run.json strings with
// terminal escapes reach the page escaped, as the text commands show
// them, in its text and in its pictures.
func TestReportOfNamesWithControlCharacters(t *testing.T) {
	normal, faulty, hung := evilRun(t, "oddeven-normal"), evilRun(t, "oddeven-swapbug"), evilRun(t, "oddeven-dlbug")
	dir := t.TempDir()
	for _, c := range []struct {
		faulty string
		shown  []string
	}{
		{faulty, []string{evilShown, `\x1b]0;title\x07`}},
		{hung, []string{recvShown, `\x1b]0;title\x07`}},
	} {
		page := filepath.Join(dir, "report.html")
		ok(t, "report", normal, c.faulty, "--filters", "mpi,all", "-o", page)
		b := mustRead(t, page)
		if ch, bad := unprintable(b); bad {
			i := strings.IndexRune(string(b), ch)
			t.Errorf("the page holds %U: …%q…", ch, b[max(i-60, 0):min(i+60, len(b))])
		}
		for _, want := range c.shown {
			if !strings.Contains(string(b), html.EscapeString(want)) {
				t.Errorf("the page lacks %q", want)
			}
		}
	}
}

// orDash shows an unknown value as "-", as rank's table does.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
