package uftrace

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func FuzzUftraceTaskLine(f *testing.F) {
	f.Add(`SESS timestamp=1.000000002 pid=3 sid=ab exename="/x y"`)
	f.Add(`DLOP timestamp=1.5 tid=1 sid=ab base=7f00 libname="/l.so"`)
	f.Add(`TASK tid="unterminated`)
	f.Fuzz(func(t *testing.T, line string) {
		kw, fs, ok := taskFields(line)
		parseTime(fs["timestamp"])
		if !ok {
			return
		}
		// The fields, written back with every value quoted as task.txt
		// quotes names, read back the same (a value holding a quote cannot
		// be quoted).
		again := kw
		for _, k := range slices.Sorted(maps.Keys(fs)) {
			if strings.Contains(fs[k], `"`) {
				return
			}
			again += " " + k + `="` + fs[k] + `"`
		}
		kw2, fs2, ok2 := taskFields(again)
		if !ok2 || kw2 != kw || !maps.Equal(fs, fs2) {
			t.Fatalf("%q reads as %q %q; written back as %q it reads as %q %q (ok %v)", line, kw, fs, again, kw2, fs2, ok2)
		}
	})
}
