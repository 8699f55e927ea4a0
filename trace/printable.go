package trace

import (
	"strconv"
	"unicode/utf8"
)

// Printable returns s as text output shows it: what a terminal or a picture
// would act on instead of showing is written out as an escape. A byte that
// is a C0 control (line feeds and tabs included), DEL or not part of valid
// UTF-8 becomes "\x1b"; a C1 control (U+0080–U+009F) or a bidirectional
// formatting character (U+061C, U+200E–U+200F, U+202A–U+202E,
// U+2066–U+2069, which reorder or hide the text around them) or a line or
// paragraph separator (U+2028, U+2029) becomes "\u202e". Everything else,
// backslashes included, stays as it is, so an ordinary name comes back
// unchanged (and without a copy).
//
// Function names, paths and the other strings a trace or its run.json
// hold are anyone's to write: every listing, table and picture passes them
// through Printable (or PrintableLines). JSON output keeps them as they
// are, since JSON escapes them itself; filters match them as they are.
func Printable(s string) string { return printable(s, false) }

// PrintableLines is Printable for text of several lines: it keeps line
// feeds and tabs, and escapes the rest alike.
func PrintableLines(s string) string { return printable(s, true) }

// PrintableNames returns a naming function that gives Printable(name(s)).
func PrintableNames(name func(Symbol) string) func(Symbol) string {
	return func(s Symbol) string { return Printable(name(s)) }
}

func printable(s string, lines bool) string {
	i := 0
	for i < len(s) {
		n, bad := unprintable(s, i, lines)
		if bad {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	for i < len(s) {
		n, bad := unprintable(s, i, lines)
		switch {
		case !bad:
			b = append(b, s[i:i+n]...)
		case n == 1:
			b = append(b, `\x`...)
			b = appendHex(b, uint32(s[i]), 2)
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			b = append(b, `\u`...)
			b = appendHex(b, uint32(r), 4)
		}
		i += n
	}
	return string(b)
}

// unprintable returns the length of the character (or invalid byte) at
// s[i] and whether Printable escapes it.
func unprintable(s string, i int, lines bool) (n int, bad bool) {
	c := s[i]
	if c < utf8.RuneSelf {
		if lines && (c == '\n' || c == '\t') {
			return 1, false
		}
		return 1, c < 0x20 || c == 0x7f
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n == 1 {
		return 1, true
	}
	switch {
	case r <= 0x9f, r == 0x061c, r == 0x200e, r == 0x200f,
		0x2028 <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return n, true
	}
	return n, false
}

// appendHex appends v in lower-case hexadecimal, zero-padded to digits.
func appendHex(b []byte, v uint32, digits int) []byte {
	h := strconv.FormatUint(uint64(v), 16)
	for range digits - len(h) {
		b = append(b, '0')
	}
	return append(b, h...)
}
