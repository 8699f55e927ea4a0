package plural

import "testing"

func TestWord(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "changes"}, {1, "change"}, {2, "changes"}, {-1, "changes"}} {
		if got := Word(c.n, "change", "changes"); got != c.want {
			t.Errorf("Word(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if Word(uint64(1), "", "s") != "" || Word(uint64(7), "", "s") != "s" {
		t.Error("Word on uint64 counts")
	}
}
