package rundir

import (
	"strconv"
	"strings"
)

// The trace files of a run directory: <prefix>.<rank>.info, a rank's
// function table, and <prefix>.<rank>.<thread>, one thread's trace (threads
// numbered by creation, main = 0). The original ParLOT tool names them the
// same way, with a pid in place of the rank and a prefix
// Hdbg.<version>.<host>.

// DefaultPrefix is the trace-file prefix of this project's run directories:
// the one capture writes unless told otherwise, and the one a run directory
// without a manifest is read with.
const DefaultPrefix = "trace"

// InfoSuffix ends the name of a function table.
const InfoSuffix = ".info"

// Stem is "<prefix>.<rank>", the name every file of one rank starts with.
func Stem(prefix string, rank int) string {
	return prefix + "." + strconv.Itoa(rank)
}

// InfoName is the function table of a rank: <prefix>.<rank>.info.
func InfoName(prefix string, rank int) string {
	return Stem(prefix, rank) + InfoSuffix
}

// TraceName is the trace of one thread of a rank: <prefix>.<rank>.<thread>.
func TraceName(prefix string, rank, thread int) string {
	return Stem(prefix, rank) + "." + strconv.Itoa(thread)
}

// SplitTrace splits a trace file's name "<stem>.<thread>", where stem is
// "<prefix>.<number>"; ok is false for any other name.
func SplitTrace(name string) (stem string, thread int, ok bool) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 {
		return "", 0, false
	}
	t, err := strconv.Atoi(name[i+1:])
	if err != nil || t < 0 || !allDigits(name[i+1:]) {
		return "", 0, false
	}
	if _, _, ok := SplitStem(name[:i]); !ok {
		return "", 0, false
	}
	return name[:i], t, true
}

// SplitStem splits "<prefix>.<number>" (the number is a rank, or a pid in
// the original tool's files); ok is false for any other name.
func SplitStem(stem string) (prefix string, n int, ok bool) {
	i := strings.LastIndexByte(stem, '.')
	if i <= 0 || !allDigits(stem[i+1:]) {
		return "", 0, false
	}
	n, err := strconv.Atoi(stem[i+1:])
	if err != nil {
		return "", 0, false
	}
	return stem[:i], n, true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
