package draw

import "testing"

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"MPI_Init", `"MPI_Init"`},
		{`say "hi"`, `"say \"hi\""`},
		{`a\nb\l\N`, `"a\\nb\\l\\N"`},
		{"two\nlines", `"two\nlines"`},
		{"tab\there", `"tab here"`},
		{"\x1b[2J\r\b", `"\\x1b[2J\\x0d\\x08"`},
		{"c1\u009b bidi\u202e bad\xff", `"c1\\u009b bidi\\u202e bad\\xff"`},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestHTML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"MPI_Init", "MPI_Init"},
		{`a<b> & "c" 'd'`, "a&lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;"},
		{"two\nlines\tand tab", "two lines and tab"},
		{"\x1b]0;pwned\x07\r", `\x1b]0;pwned\x07\x0d`},
		{"c1\u0085 bidi\u2066 bad\xc3", `c1\u0085 bidi\u2066 bad\xc3`},
	} {
		if got := HTML(c.in); got != c.want {
			t.Errorf("HTML(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
