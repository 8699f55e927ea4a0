package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRankSuspectShare: --suspect-share moves the cut of each row's
// suspects, the table's heading and the JSON say which cut, and a share
// that is no share of the highest score is refused before any work.
func TestRankSuspectShare(t *testing.T) {
	normal, faulty := filepath.Join(runsDir, "oddeven-normal"), filepath.Join(runsDir, "oddeven-dlbug")
	base := []string{"rank", normal, faulty, "--filters", "mpi.sr", "--attrs", "sing.log10", "--linkage", "ward", "--top", "0", "--no-session"}
	def := ok(t, base...)
	if strings.Contains(def, "suspects: the traces scoring") {
		t.Errorf("the default cut is named in the heading:\n%s", def)
	}
	if got := ok(t, append(base, "--suspect-share", "0.5")...); got != def {
		t.Errorf("--suspect-share 0.5 is not the default:\n%s\nwant:\n%s", got, def)
	}
	row := func(table string) string {
		for _, l := range strings.Split(table, "\n") {
			if strings.HasPrefix(l, "mpi.sr") {
				return l
			}
		}
		t.Fatalf("no row in\n%s", table)
		return ""
	}
	// Under the default cut the row lists 5 suspects; at 1 only those
	// scoring the highest, at 0.01 more.
	low, high := ok(t, append(base, "--suspect-share", "0.01")...), ok(t, append(base, "--suspect-share", "1")...)
	if n, d := strings.Count(row(low), ","), strings.Count(row(def), ","); n <= d {
		t.Errorf("share 0.01 lists no more suspects than the default: %q, %q", row(low), row(def))
	}
	if !strings.Contains(low, "suspects: the traces scoring at least 0.01 of the highest score") {
		t.Errorf("the heading does not name the cut:\n%s", low)
	}
	if strings.Count(row(high), ",") >= strings.Count(row(def), ",") {
		t.Errorf("share 1 lists as many suspects as the default: %q, %q", row(high), row(def))
	}
	if js := ok(t, append(base, "--suspect-share", "0.25", "--format", "json")...); !strings.Contains(js, `"suspect_share": 0.25,`) {
		t.Error("the JSON does not name the cut")
	}
	if js := ok(t, append(base, "--format", "json")...); strings.Contains(js, "suspect_share") {
		t.Error("the JSON names the default cut")
	}
	for _, bad := range []string{"0", "-0.5", "1.5", "NaN"} {
		fails(t, []string{"--suspect-share", "above 0 and at most 1"}, append(base, "--suspect-share", bad)...)
	}
}
