package param

import (
	"fmt"
	"strings"
)

// Advice is an error whose message advises setting a parameter. Its
// format names each such piece of advice between braces, in the
// library's words ("{set Options.Unrelated}"); a caller that sets the
// parameter another way, a command line by its flags, gives its own
// words for them (Say) before the error is printed. Without them the
// braces are dropped and the library's words stay.
type Advice struct {
	format string
	args   []any
	say    map[string]string
}

// Advise returns an Advice formatting args by format as fmt.Errorf does
// (%w wraps), after the words in braces in format are put as the caller
// says them.
func Advise(format string, args ...any) *Advice {
	return &Advice{format: format, args: args}
}

// Say gives the caller's words for the library's ones in braces.
func (a *Advice) Say(words map[string]string) { a.say = words }

func (a *Advice) err() error {
	var b strings.Builder
	rest := a.format
	for {
		i := strings.IndexByte(rest, '{')
		j := strings.IndexByte(rest[i+1:], '}')
		if i < 0 || j < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		words := rest[i+1 : i+1+j]
		if s, ok := a.say[words]; ok {
			words = s
		}
		b.WriteString(strings.ReplaceAll(words, "%", "%%"))
		rest = rest[i+2+j:]
	}
	return fmt.Errorf(b.String(), a.args...)
}

func (a *Advice) Error() string { return a.err().Error() }

// Unwrap returns what the format wraps with %w, if anything.
func (a *Advice) Unwrap() []error {
	switch e := a.err().(type) {
	case interface{ Unwrap() error }:
		return []error{e.Unwrap()}
	case interface{ Unwrap() []error }:
		return e.Unwrap()
	}
	return nil
}
