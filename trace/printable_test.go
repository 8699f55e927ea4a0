package trace

import (
	"strings"
	"testing"
)

func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, want, lines string }{
		{"MPI_Send", "MPI_Send", "MPI_Send"},
		{"mesh::Grid::step(double) é → ü", "mesh::Grid::step(double) é → ü", "mesh::Grid::step(double) é → ü"},
		{`a\b`, `a\b`, `a\b`},
		{"\x1b[2Jclear", `\x1b[2Jclear`, `\x1b[2Jclear`},
		{"\x1b]0;pwned\x07x", `\x1b]0;pwned\x07x`, `\x1b]0;pwned\x07x`},
		{"hide\rshow", `hide\x0dshow`, `hide\x0dshow`},
		{"ab\b\bcd", `ab\x08\x08cd`, `ab\x08\x08cd`},
		{"a\nb\tc", `a\x0ab\x09c`, "a\nb\tc"},
		{"del\x7f", `del\x7f`, `del\x7f`},
		{"c1\u009b31m", `c1\u009b31m`, `c1\u009b31m`},
		{"raw\x9b31m", `raw\x9b31m`, `raw\x9b31m`},
		{"bad\xff\xfe", `bad\xff\xfe`, `bad\xff\xfe`},
		{"cut\xe2\x80", `cut\xe2\x80`, `cut\xe2\x80`},
		{"evil\u202etxt.exe", `evil\u202etxt.exe`, `evil\u202etxt.exe`},
		{"iso\u2066x\u2069", `iso\u2066x\u2069`, `iso\u2066x\u2069`},
		{"sep\u2028", `sep\u2028`, `sep\u2028`},
		{"\ufffd real replacement", "\ufffd real replacement", "\ufffd real replacement"},
	} {
		if got := Printable(c.in); got != c.want {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := PrintableLines(c.in); got != c.lines {
			t.Errorf("PrintableLines(%q) = %q, want %q", c.in, got, c.lines)
		}
	}
}

// TestPrintableClean checks that what Printable returns holds no byte a
// terminal acts on, whatever it was given.
func TestPrintableClean(t *testing.T) {
	var all strings.Builder
	for b := range 256 {
		all.WriteByte(byte(b))
	}
	all.WriteString("\u0085\u009f\u200f\u202a\u2069")
	out := Printable(all.String())
	for i := 0; i < len(out); i++ {
		if c := out[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			t.Fatalf("Printable left byte %#x at %d: %q", c, i, out)
		}
	}
}

func TestPrintableNoCopy(t *testing.T) {
	s := "MPI_Allreduce"
	if n := testing.AllocsPerRun(100, func() { _ = Printable(s) }); n != 0 {
		t.Errorf("Printable of a plain name allocates %v times", n)
	}
}
