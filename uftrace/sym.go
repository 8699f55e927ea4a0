package uftrace

import (
	"bufio"
	"debug/elf"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/elfsym"
	"github.com/difftrace/difftrace/trace"
)

// sym is one symbol of an image, at an offset from the image's load
// address. kind is uftrace's letter: T (global function), t (local), w
// (weak), P (procedure linkage table entry), ? (end marker).
type sym struct {
	off  uint64
	kind byte
	name string
}

// imageSyms holds the function symbols of one image, sorted by offset.
type imageSyms struct {
	syms []sym
	end  uint64 // offsets at or beyond end belong to no function
	err  error  // why no symbols could be read (then syms is empty)
}

// readSymFile reads the .sym file uftrace saved for the image at path,
// name in fsys (file in messages).
func readSymFile(fsys fs.FS, name, file, path string) (*imageSyms, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img := &imageSyms{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			if p, ok := strings.CutPrefix(line, "# path name: "); ok && p != path {
				return nil, &Error{file, -1, 0, "symbols of " + p + ", not of " + path, nil}
			}
			continue
		}
		a, rest, ok1 := strings.Cut(line, " ")
		k, name, ok2 := strings.Cut(rest, " ")
		off, err := strconv.ParseUint(a, 16, 64)
		if !ok1 || !ok2 || err != nil || len(k) != 1 {
			return nil, &Error{file, -1, n, "malformed symbol line", nil}
		}
		switch k[0] {
		case 'T', 't', 'w', 'W', 'P', 'i':
			img.syms = append(img.syms, sym{off, k[0], name})
		case '?':
			img.syms = append(img.syms, sym{off, '?', name})
		}
		img.end = max(img.end, off)
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{file, -1, 0, "cannot read the symbols", err}
	}
	img.sort()
	return img, nil
}

func (img *imageSyms) sort() {
	slices.SortStableFunc(img.syms, func(a, b sym) int {
		switch {
		case a.off < b.off:
			return -1
		case a.off > b.off:
			return 1
		}
		return 0
	})
}

// lookup returns the symbol covering offset off: the last one at or below
// it, unless that is an end marker.
func (img *imageSyms) lookup(off uint64) (sym, bool) {
	i, found := slices.BinarySearchFunc(img.syms, off, func(s sym, o uint64) int {
		switch {
		case s.off < o:
			return -1
		case s.off > o:
			return 1
		}
		return 0
	})
	if found {
		// Several symbols at one offset: take the first function among them.
		for j := i; j < len(img.syms) && img.syms[j].off == off; j++ {
			if img.syms[j].kind != '?' {
				return img.syms[j], true
			}
		}
		return sym{}, false
	}
	if i == 0 || off >= img.end {
		return sym{}, false
	}
	s := img.syms[i-1]
	return s, s.kind != '?'
}

func (img *imageSyms) covers(off uint64) bool { return off < img.end }

// name names the function at offset off of the image at path.
func (img *imageSyms) name(path string, off uint64) trace.Name {
	if s, ok := img.lookup(off); ok {
		return trace.Name{Image: path, Func: s.name}
	}
	return trace.Name{Image: path, Func: fmt.Sprintf("0x%x", off)}
}

// readELFSyms reads the function symbols and PLT entries of the ELF file at
// path, at offsets from its load address, as uftrace would have saved them.
// It is the fallback for recordings whose recorder was killed before it
// wrote its .sym files.
func readELFSyms(path, buildID string) *imageSyms {
	img := &imageSyms{}
	f, err := elf.Open(path)
	if err != nil {
		img.err = err
		return img
	}
	defer f.Close()
	if buildID != "" {
		if id := elfsym.BuildID(f); id != "" && id != buildID {
			img.err = fmt.Errorf("%s has changed since the recording (build id %s, recorded %s)", path, id, buildID)
			return img
		}
	}
	base := ^uint64(0)
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			base = min(base, p.Vaddr&^0xfff)
		}
	}
	if base == ^uint64(0) {
		base = 0
	}
	add := func(syms []elf.Symbol) {
		for _, s := range syms {
			if !elfsym.IsFunc(s) || s.Value < base {
				continue
			}
			k := byte('T')
			switch elf.ST_BIND(s.Info) {
			case elf.STB_LOCAL:
				k = 't'
			case elf.STB_WEAK:
				k = 'w'
			}
			name, _, _ := strings.Cut(s.Name, "@")
			img.syms = append(img.syms, sym{s.Value - base, k, name})
			img.end = max(img.end, s.Value-base+max(s.Size, 1))
		}
	}
	syms, _ := f.Symbols()
	add(syms)
	dyn, _ := f.DynamicSymbols()
	add(dyn)
	for _, p := range elfsym.PLTEntries(f) {
		img.syms = append(img.syms, sym{p.Addr - base, 'P', p.Name})
		img.end = max(img.end, p.Addr-base+16)
	}
	// Keep one symbol per offset, preferring PLT entries, then global, weak
	// and local functions, then the alphabetically first name.
	rank := map[byte]int{'P': 0, 'T': 1, 'w': 2, 't': 3}
	slices.SortFunc(img.syms, func(a, b sym) int {
		switch {
		case a.off != b.off:
			if a.off < b.off {
				return -1
			}
			return 1
		case rank[a.kind] != rank[b.kind]:
			return rank[a.kind] - rank[b.kind]
		}
		return strings.Compare(a.name, b.name)
	})
	img.syms = slices.CompactFunc(img.syms, func(a, b sym) bool { return a.off == b.off })
	if len(img.syms) == 0 {
		img.err = fmt.Errorf("%s has no function symbols", path)
	}
	return img
}
