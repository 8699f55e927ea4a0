package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/difftrace/difftrace/decode"
)

// evilName is a function name made to act on a terminal: it clears the
// screen, sets the window title, goes back over its own text, and holds a
// C1 control, invalid UTF-8 and a right-to-left override.
const evilName = "MPI_Send\x1b[2J\x1b]0;pwned\x07\rhid\b\bden\u009b31m\x9b\xff\u202e"

// evilShown is how text output shows it (trace.Printable).
const evilShown = `MPI_Send\x1b[2J\x1b]0;pwned\x07\x0dhid\x08\x08den\u009b31m\x9b\xff\u202e`

// recvName is MPI_Recv with a cursor movement, where the hung run's traces
// end; recvShown is how it is shown.
const (
	recvName  = "MPI_Recv\x1b[1A"
	recvShown = `MPI_Recv\x1b[1A`
)

// evilRun copies a committed run with MPI_Send renamed to evilName and
// MPI_Recv to recvName in every function table, and with a host and a command line that hold
// escapes too.
func evilRun(t *testing.T, name string) string {
	t.Helper()
	dir := copyDir(t, exampleRun(name))
	infos, _ := filepath.Glob(filepath.Join(dir, "*.info"))
	if len(infos) == 0 {
		t.Fatalf("no function tables in %s", dir)
	}
	for _, f := range infos {
		b := mustRead(t, f)
		b = bytes.ReplaceAll(b, []byte("\nMPI_Send\n"), []byte("\n"+evilName+"\n"))
		writeFile(t, f, bytes.ReplaceAll(b, []byte("\nMPI_Recv\n"), []byte("\n"+recvName+"\n")))
	}
	m, err := decode.ReadManifest(filepath.Join(dir, decode.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	m.Command = append(m.Command, "\x1b]0;title\x07")
	m.Ranks[0].Host = "node\x1b[31m1"
	writeManifest(t, dir, m)
	return dir
}

// printable reports the first character of out that a terminal would act
// on instead of showing, if any.
func unprintable(out []byte) (rune, bool) {
	if !utf8.Valid(out) {
		return utf8.RuneError, true
	}
	for _, r := range string(out) {
		switch {
		case r < 0x20 && r != '\n' && r != '\t', r >= 0x7f && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return r, true
		}
	}
	return 0, false
}

// Function names and run.json strings with terminal escapes are shown
// escaped by every text command, on stdout and stderr (they cleared the
// screen, set the window title and hid lines); a custom filter still
// matches the name as it is, and JSON keeps it.
func TestNamesWithControlCharacters(t *testing.T) {
	normal, faulty, hung := evilRun(t, "oddeven-normal"), evilRun(t, "oddeven-swapbug"), evilRun(t, "oddeven-dlbug")
	dir := t.TempDir()
	for _, c := range []struct {
		args  []string
		shown string // what the output must hold
	}{
		{[]string{"decode", normal, "--trace", "5"}, "> oddeven:" + evilShown + "\n"},
		{[]string{"decode", normal, "--trace", "5", "--format", "flat"}, "\tcall\toddeven\t" + evilShown + "\n"},
		{[]string{"decode", normal, "--trace", "5", "--stack-at", "13"}, "return oddeven:" + evilShown},
		{[]string{"stats", normal, "--edges"}, ":" + evilShown + "\n"},
		{[]string{"stats", normal, "--format", "csv"}, "," + evilShown + ","},
		{[]string{"info", normal}, `node\x1b[31m1`},
		{[]string{"info", normal}, `\x1b]0;title\x07`},
		{[]string{"filter", normal, "--filter", "cust=pwned", "--trace", "5"}, "\n" + evilShown + "\n"},
		{[]string{"nlr", normal, faulty, "--filter", "all", "--trace", "5"}, evilShown + "]"},
		{[]string{"lattice", hung, "--filter", "all", "--attrs", "doub.noFreq"}, evilShown},
		{[]string{"rank", normal, hung}, recvShown},
		{[]string{"hang", hung, normal, "--rows", "0"}, "oddEvenSort > " + recvShown + " [0-14]"},
		{[]string{"diffnlr", "5", "--normal", normal, "--faulty", faulty, "--filter", "all", "--color", "never"}, "first difference: "},
		{[]string{"diffnlr", "5", "--normal", normal, "--faulty", faulty, "--filter", "all", "--color", "never"}, "  L1 = [findPtr, " + recvShown + ", " + evilShown + "]\n"},
	} {
		r := difftraceAt(t, dir, nil, c.args...)
		what := "difftrace " + strings.Join(c.args[:1], " ")
		if r.code != 0 {
			t.Errorf("%s: exit %d: %s", what, r.code, r.stderr)
			continue
		}
		if ch, bad := unprintable(r.stdout); bad {
			t.Errorf("%s prints %U:\n%q", what, ch, r.stdout)
		}
		if ch, bad := unprintable(r.stderr); bad {
			t.Errorf("%s says %U on stderr:\n%q", what, ch, r.stderr)
		}
		if !strings.Contains(string(r.stdout), c.shown) {
			t.Errorf("%s %s: output lacks %q:\n%s", what, strings.Join(c.args[1:], " "), c.shown, r.stdout)
		}
	}

	// JSON keeps the name: each invalid byte as U+FFFD, as encoding/json
	// writes it, the rest exactly.
	want := strings.ReplaceAll(evilName, "\x9b\xff", "\ufffd\ufffd")
	out := okIn(t, dir, "decode", normal, "--trace", "5", "--format", "json")
	found := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev struct{ Func *string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		found = found || (ev.Func != nil && *ev.Func == want)
	}
	if !found {
		t.Errorf("decode --format json does not give the name back as it is")
	}
	var st struct {
		Groups []struct{ Functions []struct{ Func string } }
	}
	if err := json.Unmarshal([]byte(okIn(t, dir, "stats", normal, "--format", "json")), &st); err != nil {
		t.Fatal(err)
	}
	found = false
	for _, g := range st.Groups {
		for _, f := range g.Functions {
			found = found || f.Func == want
		}
	}
	if !found {
		t.Errorf("stats --format json does not give the name back as it is")
	}
}

// The pictures of names with control characters: the DOT sources hold
// none and Graphviz reads them, the SVG keeps its title, first difference
// and legend, the PNG draws.
func TestPicturesOfNamesWithControlCharacters(t *testing.T) {
	normal, faulty, hung := evilRun(t, "oddeven-normal"), evilRun(t, "oddeven-swapbug"), evilRun(t, "oddeven-dlbug")
	dir := t.TempDir()
	okIn(t, dir, "diffnlr", "5", "--normal", normal, "--faulty", faulty, "--filter", "all", "-o", "d.dot", "-o", "d.svg", "-o", "d.png")
	okIn(t, dir, "hang", hung, normal, "-o", "h.dot", "-o", "h.svg", "-o", "h.png")
	okIn(t, dir, "lattice", hung, "--filter", "all", "--attrs", "doub.noFreq", "-o", "l.dot", "-o", "l.svg", "-o", "l.png")
	for _, name := range []string{"d", "h", "l"} {
		dot := mustRead(t, filepath.Join(dir, name+".dot"))
		if ch, bad := unprintable(dot); bad {
			t.Errorf("%s.dot holds %U", name, ch)
		}
		if !bytes.Contains(dot, []byte(`x1b[`)) {
			t.Errorf("%s.dot does not show the name escaped", name)
		}
		// Graphviz reads the source the command wrote.
		cmd := exec.Command(helperBin(), "svg")
		cmd.Stdin = bytes.NewReader(dot)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if out, err := cmd.Output(); err != nil || !bytes.Contains(out, []byte("<svg")) {
			t.Errorf("Graphviz on %s.dot: %v %s", name, err, errb.String())
		}
		svg := mustRead(t, filepath.Join(dir, name+".svg"))
		if ch, bad := unprintable(svg); bad {
			t.Errorf("%s.svg holds %U", name, ch)
		}
		if !bytes.Contains(svg, []byte(`\x1b[`)) {
			t.Errorf("%s.svg does not show the name escaped", name)
		}
		if png := mustRead(t, filepath.Join(dir, name+".png")); !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("%s.png is no PNG", name)
		}
	}
	svg := string(mustRead(t, filepath.Join(dir, "d.svg")))
	for _, want := range []string{"diffNLR(5): ", "first difference: ", "only in faulty", "L1 = [findPtr, " + recvShown + ", " + evilShown + "]"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the diffNLR SVG lacks %q", want)
		}
	}
}
