package decode

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/trace"
)

// uftraceSym is one symbol of an image, at an offset from the image's load
// address. kind is uftrace's letter: T (global function), t (local), w
// (weak), P (procedure linkage table entry), ? (end marker).
type uftraceSym struct {
	off  uint64
	kind byte
	name string
}

// uftraceImage holds the function symbols of one image, sorted by offset.
type uftraceImage struct {
	syms []uftraceSym
	end  uint64 // offsets at or beyond end belong to no function
	err  error  // why no symbols could be read (then syms is empty)
}

// readUftraceSyms reads the .sym file uftrace saved for the image at path,
// name in fsys (file in messages).
func readUftraceSyms(fsys fs.FS, name, file, path string) (*uftraceImage, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img := &uftraceImage{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			if p, ok := strings.CutPrefix(line, "# path name: "); ok && p != path {
				return nil, fmt.Errorf("%s: symbols of %s, not of %s", file, p, path)
			}
			continue
		}
		a, rest, ok1 := strings.Cut(line, " ")
		k, name, ok2 := strings.Cut(rest, " ")
		off, err := strconv.ParseUint(a, 16, 64)
		if !ok1 || !ok2 || err != nil || len(k) != 1 {
			return nil, &UftraceError{file, -1, n, "malformed symbol line"}
		}
		switch k[0] {
		case 'T', 't', 'w', 'W', 'P', 'i':
			img.syms = append(img.syms, uftraceSym{off, k[0], name})
		case '?':
			img.syms = append(img.syms, uftraceSym{off, '?', name})
		}
		img.end = max(img.end, off)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	img.sort()
	return img, nil
}

func (img *uftraceImage) sort() {
	slices.SortStableFunc(img.syms, func(a, b uftraceSym) int {
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
func (img *uftraceImage) lookup(off uint64) (uftraceSym, bool) {
	i, found := slices.BinarySearchFunc(img.syms, off, func(s uftraceSym, o uint64) int {
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
		return uftraceSym{}, false
	}
	if i == 0 || off >= img.end {
		return uftraceSym{}, false
	}
	s := img.syms[i-1]
	return s, s.kind != '?'
}

func (img *uftraceImage) covers(off uint64) bool { return off < img.end }

// name names the function at offset off of the image at path.
func (img *uftraceImage) name(path string, off uint64) trace.Name {
	if s, ok := img.lookup(off); ok {
		return trace.Name{Image: path, Func: s.name}
	}
	return trace.Name{Image: path, Func: fmt.Sprintf("0x%x", off)}
}

// readELFSyms reads the function symbols and PLT entries of the ELF file at
// path, at offsets from its load address, as uftrace would have saved them.
// It is the fallback for recordings whose recorder was killed before it
// wrote its .sym files.
func readELFSyms(path, buildID string) *uftraceImage {
	img := &uftraceImage{}
	f, err := elf.Open(path)
	if err != nil {
		img.err = err
		return img
	}
	defer f.Close()
	if buildID != "" {
		if id := ELFBuildID(f); id != "" && id != buildID {
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
			t := elf.ST_TYPE(s.Info)
			if (t != elf.STT_FUNC && t != elf.STT_GNU_IFUNC) || s.Section == elf.SHN_UNDEF || s.Value < base {
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
			img.syms = append(img.syms, uftraceSym{s.Value - base, k, name})
			img.end = max(img.end, s.Value-base+max(s.Size, 1))
		}
	}
	syms, _ := f.Symbols()
	add(syms)
	dyn, _ := f.DynamicSymbols()
	add(dyn)
	for _, p := range ELFPLTEntries(f) {
		img.syms = append(img.syms, uftraceSym{p.Addr - base, 'P', p.Name})
		img.end = max(img.end, p.Addr-base+16)
	}
	// Keep one symbol per offset, preferring PLT entries, then global, weak
	// and local functions, then the alphabetically first name.
	rank := map[byte]int{'P': 0, 'T': 1, 'w': 2, 't': 3}
	slices.SortFunc(img.syms, func(a, b uftraceSym) int {
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
	img.syms = slices.CompactFunc(img.syms, func(a, b uftraceSym) bool { return a.off == b.off })
	if len(img.syms) == 0 {
		img.err = fmt.Errorf("%s has no function symbols", path)
	}
	return img
}

// ELFPLTEntry is a function called through an image's procedure linkage
// table, at the address of its PLT entry (relative to the file's virtual
// addresses).
type ELFPLTEntry struct {
	Name string
	Addr uint64
}

// ELFPLTEntries lists the PLT entries of an x86-64 ELF file: the i-th
// R_X86_64_JUMP_SLOT relocation of .rela.plt is the entry at .plt.sec + 16·i
// when the file has .plt.sec (IBT), else at .plt + 16·(i+1).
func ELFPLTEntries(f *elf.File) []ELFPLTEntry {
	rela := f.Section(".rela.plt")
	if rela == nil || f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		return nil
	}
	data, err := rela.Data()
	if err != nil {
		return nil
	}
	dyn, err := f.DynamicSymbols()
	if err != nil {
		return nil
	}
	var base uint64
	if s := f.Section(".plt.sec"); s != nil {
		base = s.Addr
	} else if s := f.Section(".plt"); s != nil {
		base = s.Addr + 16
	} else {
		return nil
	}
	var out []ELFPLTEntry
	for i := 0; i+24 <= len(data); i += 24 {
		info := binary.LittleEndian.Uint64(data[i+8:])
		if elf.R_X86_64(info&0xffffffff) != elf.R_X86_64_JMP_SLOT {
			continue
		}
		idx := int(info >> 32)
		if idx < 1 || idx > len(dyn) {
			continue
		}
		out = append(out, ELFPLTEntry{Name: dyn[idx-1].Name, Addr: base + uint64(i/24)*16})
	}
	return out
}

// ELFBuildID returns the GNU build id of an ELF file in hexadecimal, or "".
func ELFBuildID(f *elf.File) string {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		for len(b) >= 12 {
			nsz := int(binary.LittleEndian.Uint32(b))
			dsz := int(binary.LittleEndian.Uint32(b[4:]))
			typ := binary.LittleEndian.Uint32(b[8:])
			no := 12 + (nsz+3)&^3
			end := no + (dsz+3)&^3
			if end > len(b) || no+dsz > len(b) {
				break
			}
			if typ == 3 && bytes.Equal(bytes.TrimRight(b[12:12+nsz], "\x00"), []byte("GNU")) {
				return hex.EncodeToString(b[no : no+dsz])
			}
			b = b[end:]
		}
	}
	return ""
}

// ELFFunctionNames returns every name of the function that contains the
// virtual address vaddr of the ELF file at path: a library often gives one
// function several names (MPI_Recv and PMPI_Recv), and which one a caller
// used can only be told from the caller's side.
func ELFFunctionNames(path string, vaddr uint64) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var all []elf.Symbol
	if s, err := f.Symbols(); err == nil {
		all = append(all, s...)
	}
	if s, err := f.DynamicSymbols(); err == nil {
		all = append(all, s...)
	}
	isFunc := func(s elf.Symbol) bool {
		t := elf.ST_TYPE(s.Info)
		return (t == elf.STT_FUNC || t == elf.STT_GNU_IFUNC) && s.Section != elf.SHN_UNDEF
	}
	// The containing function: the highest start at or below vaddr whose
	// size (when known) covers it.
	var start uint64
	found := false
	for _, s := range all {
		if isFunc(s) && s.Value <= vaddr && (s.Size == 0 || vaddr < s.Value+s.Size) && (!found || s.Value > start) {
			start, found = s.Value, true
		}
	}
	if !found {
		return nil, fmt.Errorf("%s: no function at address 0x%x", path, vaddr)
	}
	var names []string
	for _, s := range all {
		if isFunc(s) && s.Value == start {
			n, _, _ := strings.Cut(s.Name, "@")
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names, nil
}
