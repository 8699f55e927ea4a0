package outfile

import (
	"bytes"
	"errors"
	"testing"

	"github.com/difftrace/difftrace/internal/param"
)

// Colours follow the mode; auto colours a terminal only, and a buffer is
// none. Another mode names the parameter and the modes there are.
func TestColor(t *testing.T) {
	var buf bytes.Buffer
	for mode, want := range map[string]bool{"always": true, "never": false, "auto": false} {
		if got, err := Color(mode, &buf); err != nil || got != want {
			t.Errorf("Color(%q, a buffer) = %v, %v; want %v", mode, got, err, want)
		}
	}
	_, err := Color("sometimes", &buf)
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Name != "color" || err.Error() != `color "sometimes": want auto, always or never` {
		t.Errorf("Color(sometimes): %v, want a param.Error of color listing the modes", err)
	}
}
