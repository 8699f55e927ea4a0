package fca

import (
	"fmt"
	"strings"
)

// Freq says how an attribute carries the frequency of its entry (seeds/002
// Table 3.5).
type Freq uint8

const (
	NoFreq Freq = iota // presence only: the attribute is the entry
	Actual             // entry:frequency
	Log10              // entry:⌊log10 frequency⌋
)

// Mode is one of the six attribute kinds: single entries or consecutive pairs
// of entries, each with one Freq.
type Mode struct {
	Double bool // pairs of consecutive entries instead of single entries
	Freq   Freq
}

var freqNames = [...]string{NoFreq: "noFreq", Actual: "actual", Log10: "log10"}

// Modes returns the six modes in the order they are usually listed.
func Modes() []Mode {
	var ms []Mode
	for _, d := range []bool{false, true} {
		for _, f := range []Freq{NoFreq, Actual, Log10} {
			ms = append(ms, Mode{Double: d, Freq: f})
		}
	}
	return ms
}

// String returns the mode's name: sing.noFreq, sing.actual, sing.log10,
// doub.noFreq, doub.actual or doub.log10.
func (m Mode) String() string {
	g := "sing"
	if m.Double {
		g = "doub"
	}
	if int(m.Freq) >= len(freqNames) {
		return g + ".?"
	}
	return g + "." + freqNames[m.Freq]
}

// ParseMode reads a mode name as String writes it (case-insensitive).
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes() {
		if strings.EqualFold(strings.TrimSpace(s), m.String()) {
			return m, nil
		}
	}
	var names []string
	for _, m := range Modes() {
		names = append(names, m.String())
	}
	return Mode{}, fmt.Errorf("attribute mode %q: want one of %s", s, strings.Join(names, ", "))
}
