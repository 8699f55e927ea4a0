package report

import (
	"errors"
	"testing"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/internal/param"
)

// The text's line limit leaves room for the header; each value it cannot
// take is named.
func TestTextAbridge(t *testing.T) {
	a, err := TextAbridge(3, 4, 20, 30)
	if err != nil || a != (diffnlr.Abridge{Context: 3, Changed: 4, Changes: 20, Lines: 30 - DiffNLRHead}) {
		t.Errorf("TextAbridge(3, 4, 20, 30) = %+v, %v", a, err)
	}
	if a, err := TextAbridge(-1, -1, -1, 0); err != nil || a.Lines != 0 {
		t.Errorf("no limits: %+v, %v; want no line limit", a, err)
	}
	if a, _ := TextAbridge(3, 4, 20, 2); a.Lines != 1 {
		t.Errorf("a limit shorter than the header: Lines %d, want 1", a.Lines)
	}
	for _, c := range []struct {
		context, changed, changes, lines int
		name, msg                        string
	}{
		{3, 4, 20, -2, "lines", "lines -2: give the most lines the text may take, or 0 for no limit"},
		{0, 4, 20, 30, "context", "context 0: give 1 or more, or -1 for no limit"},
		{3, -2, 20, 30, "changed", "changed -2: give 1 or more, or -1 for no limit"},
		{3, 4, 0, 30, "changes", "changes 0: give 1 or more, or -1 for no limit"},
	} {
		_, err := TextAbridge(c.context, c.changed, c.changes, c.lines)
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Name != c.name || err.Error() != c.msg {
			t.Errorf("TextAbridge(%d, %d, %d, %d): %v, want %q", c.context, c.changed, c.changes, c.lines, err, c.msg)
		}
	}
}
