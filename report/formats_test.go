package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// One ranking, four formats, the same numbers: every row's filter, K,
// attributes, linkage, B-score and suspects read back from the table
// (B-scores to its three decimals), the CSV, the JSON and the page's own
// values (the HTML is built from them; cmd/difftrace's
// TestReportSameNumbersAsRank reads them back from the page itself).
func TestRankingSameNumbersInEveryFormat(t *testing.T) {
	doc := rankDoc(t, 0, "runs/stencil-normal", "runs/stencil-skipbug")
	doc.Shown, doc.TopN = 0, 0
	rows := doc.Rows

	var js struct {
		Rows []struct {
			Filter, Attrs, Linkage string
			K                      int
			BScore                 float64               `json:"bscore"`
			Threads                []struct{ ID string } `json:"top_threads"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(write(t, doc, Options{Format: JSON}), &js); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(write(t, doc, Options{Format: CSV}))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	text := string(write(t, doc, Options{}))
	line := regexp.MustCompile(`(?m)^(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\d\.\d{3})\s+(.+?)\s{2,}(.+?)\s*$`)
	table := line.FindAllStringSubmatch(text[strings.Index(text, "FILTER"):], -1)
	page := &Report{}
	FromRanking(page, doc.Ranking)

	if len(js.Rows) != len(rows) || len(recs) != len(rows)+1 || len(table) != len(rows) || len(page.Rows) != len(rows) {
		t.Fatalf("rows: %d ranked, JSON %d, CSV %d, table %d, page %d", len(rows), len(js.Rows), len(recs)-1, len(table), len(page.Rows))
	}
	ids := func(n int, f func(int) string) string {
		var s []string
		for i := range n {
			s = append(s, f(i))
		}
		return strings.Join(s, " ")
	}
	for i, r := range rows {
		want := fmt.Sprintf("%s %d %s %s %.6f %s", r.Filter, r.K, r.Attrs, r.Linkage, r.BScore,
			ids(len(r.Threads), func(j int) string { return r.Threads[j].ID.String() }))
		j := js.Rows[i]
		fromJSON := fmt.Sprintf("%s %d %s %s %.6f %s", j.Filter, j.K, j.Attrs, j.Linkage, j.BScore,
			ids(len(j.Threads), func(k int) string { return j.Threads[k].ID }))
		c := recs[i+1]
		fromCSV := strings.Join(c[:5], " ") + " " + c[9]
		p := page.Rows[i]
		// The page keeps the first few suspects and counts the rest.
		fromPage := fmt.Sprintf("%s %d %s %s %.6f %s +%d", p.Filter, p.K, p.Attrs, p.Linkage, p.BScore,
			ids(len(p.Threads), func(k int) string { return p.Threads[k].ID.String() }), p.MoreThreads)
		wantPage := fmt.Sprintf("%s %d %s %s %.6f %s +%d", r.Filter, r.K, r.Attrs, r.Linkage, r.BScore,
			ids(len(p.Threads), func(j int) string { return r.Threads[j].ID.String() }), len(r.Threads)-len(p.Threads))
		for name, got := range map[string]string{"JSON": fromJSON, "CSV": fromCSV} {
			if got != want {
				t.Errorf("row %d in %s: %q, want %q", i, name, got, want)
			}
		}
		if fromPage != wantPage {
			t.Errorf("row %d on the page: %q, want %q", i, fromPage, wantPage)
		}
		m := table[i]
		if bs, _ := strconv.ParseFloat(m[5], 64); m[1] != r.Filter || m[2] != strconv.Itoa(r.K) || m[3] != r.Attrs || m[4] != r.Linkage ||
			fmt.Sprintf("%.3f", bs) != fmt.Sprintf("%.3f", r.BScore) {
			t.Errorf("row %d in the table: %q, want %s %d %s %s %.3f", i, m[0], r.Filter, r.K, r.Attrs, r.Linkage, r.BScore)
		}
		if th := strings.Join(strings.Fields(strings.ReplaceAll(m[7], ",", " ")), " "); len(r.Threads) > 0 && th != ids(len(r.Threads), func(j int) string { return r.Threads[j].ID.String() }) {
			t.Errorf("row %d in the table: threads %q", i, m[7])
		}
	}
}
