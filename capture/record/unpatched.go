package record

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// UnpatchedName is the file of a run directory that names every function
// of the program uftrace could not patch, one a line with the reason.
const UnpatchedName = "unpatched.txt"

// An unpatched function is one of the program's that uftrace's dynamic
// patcher left alone: calls to it are not in the traces.
type unpatched struct {
	name string
	why  string
}

// unpatchedFuncs names the functions of the program prog that uftrace
// could not patch, from its log of the dynamic patching and the program's
// symbol table. uftrace patches a function by moving its first
// instructions aside for a 5-byte call; it
//
//   - fails (and logs ">> FAIL: NAME") when they cannot be moved: they
//     address memory relative to themselves, or a jump leads back into
//     them;
//   - skips, naming none of them, every function shorter than 6 bytes,
//     and, logging ">> SKIP: NAME", those that start with endbr64 and are
//     too short for the call after it, and the cold parts (f.cold) that
//     compilers split from functions.
//
// The skipped ones are found here as uftrace finds them: function symbols
// with a size, one per address, without the start-up code it never patches.
// Only a program patched instruction by instruction is looked at (the log's
// "dynamic patch type: PROG: 0 (none)"); one built with -pg or
// -fpatchable-function-entry calls uftrace from each function and needs no
// moving. only, if not nil, holds the functions that were to be patched (a
// selective recording's); otherwise every function was.
func unpatchedFuncs(log []byte, prog string, only []string) []unpatched {
	base := filepath.Base(prog)
	normal := false
	var out []unpatched
	seen := map[string]bool{}
	for _, l := range strings.Split(string(log), "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "dynamic:"))
		if rest, ok := strings.CutPrefix(l, "dynamic patch type: "+base+": "); ok {
			normal = strings.HasSuffix(rest, "(none)")
		}
		if name, ok := strings.CutPrefix(l, ">> FAIL:"); ok {
			if name = strings.TrimSpace(name); name != "" && !seen[name] {
				seen[name] = true
				out = append(out, unpatched{name, "its first instructions cannot be moved (they address memory relative to themselves, or a jump leads back into them)"})
			}
		}
	}
	if !normal {
		return out
	}
	for _, s := range shortFuncs(prog, only) {
		if !seen[s.name] {
			seen[s.name] = true
			out = append(out, s)
		}
	}
	return out
}

// shortFuncs returns the functions of prog that uftrace's patcher skips as
// too short (see unpatchedFuncs), restricted to only when it is not nil.
func shortFuncs(prog string, only []string) []unpatched {
	f, err := elf.Open(prog)
	if err != nil {
		return nil
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil
	}
	type fn struct {
		name       string
		addr, size uint64
		sect       elf.SectionIndex
	}
	var fns []fn
	for _, s := range syms {
		t := elf.ST_TYPE(s.Info)
		if (t != elf.STT_FUNC && t != elf.STT_GNU_IFUNC) || s.Size == 0 || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			continue
		}
		fns = append(fns, fn{s.Name, s.Value, s.Size, s.Section})
	}
	// One symbol per address, as uftrace keeps them: a name that does not
	// start with "_" (unless mangled) is preferred.
	slices.SortStableFunc(fns, func(a, b fn) int {
		if a.addr != b.addr {
			if a.addr < b.addr {
				return -1
			}
			return 1
		}
		return 0
	})
	var out []unpatched
	for i := 0; i < len(fns); {
		j, best := i, fns[i]
		for ; j < len(fns) && fns[j].addr == fns[i].addr; j++ {
			if strings.HasPrefix(best.name, "_") && !strings.HasPrefix(best.name, "_Z") && !strings.HasPrefix(fns[j].name, "_") {
				best = fns[j]
			}
		}
		i = j
		switch best.name {
		case "_start", "__libc_csu_init", "__libc_csu_fini":
			continue
		}
		if only != nil && !slices.Contains(only, best.name) {
			continue
		}
		if strings.HasSuffix(best.name, ".cold") {
			out = append(out, unpatched{best.name, "the cold part of another function"})
			continue
		}
		short := best.size < 6
		if !short && best.size <= 9 && int(best.sect) < len(f.Sections) {
			// endbr64 first: what follows must hold more than the call.
			head := make([]byte, 4)
			sec := f.Sections[best.sect]
			if best.addr >= sec.Addr {
				if _, err := sec.ReadAt(head, int64(best.addr-sec.Addr)); err == nil && bytes.Equal(head, []byte{0xf3, 0x0f, 0x1e, 0xfa}) {
					short = true
				}
			}
		}
		if short {
			out = append(out, unpatched{best.name, fmt.Sprintf("too short to patch (%d bytes)", best.size)})
		}
	}
	return out
}

// patchNote says which functions of the program uftrace could not patch
// (naming the first few; the run directory's UnpatchedName lists them all),
// or returns "" if it patched all. It happens at -O0 too (a prologue that
// loads a constant relative to the instruction pointer), so rebuilding
// without optimisation does not help. Calls to those functions are silently
// missing from the recording; binaries built with -pg, -finstrument-functions
// or -fpatchable-function-entry=5 call uftrace from every function, and
// nothing needs patching.
func patchNote(fns []unpatched) string {
	if len(fns) == 0 {
		return ""
	}
	var what []string
	const shown = 5
	short := 0
	for _, f := range fns {
		if strings.HasPrefix(f.why, "too short") {
			short++
		}
	}
	for i, f := range fns {
		if i == shown {
			what = append(what, fmt.Sprintf("%d more", len(fns)-shown))
			break
		}
		what = append(what, f.name)
	}
	fnsWord := "functions"
	if len(fns) == 1 {
		fnsWord = "function"
	}
	tooShort := ""
	if short > 0 {
		tooShort = fmt.Sprintf(", %d of them too short to patch", short)
	}
	return fmt.Sprintf("uftrace could not patch %d %s of the program (%s%s; %s lists them all): calls to them are not in the traces; a build with -pg (or -finstrument-functions, or -fpatchable-function-entry=5) records every function",
		len(fns), fnsWord, strings.Join(what, ", "), tooShort, UnpatchedName)
}

// writeUnpatched writes the list of unpatched functions, one a line: the
// name, a tab, the reason.
func writeUnpatched(w io.Writer, fns []unpatched) error {
	for _, f := range fns {
		if _, err := io.WriteString(w, f.name+"\t"+f.why+"\n"); err != nil {
			return err
		}
	}
	return nil
}
