package uftrace

import "testing"

func TestAppendParse(t *testing.T) {
	for _, c := range []struct {
		r     Record
		more  bool
		plain bool
	}{
		{Record{Time: 1, Kind: Entry, Depth: 1023, Addr: 1<<48 - 1}, false, true},
		{Record{Time: 2, Kind: Exit, Depth: 7, Addr: 0x401000}, false, true},
		{Record{Time: 3, Kind: Lost, Addr: 12}, false, false},
		{Record{Time: 4, Kind: Event, Addr: 200}, true, false},
		{Record{Time: 5, Kind: Entry, Addr: 0x401000}, true, false}, // arguments follow
	} {
		b := Append(nil, c.r, c.more)
		if len(b) != RecordSize {
			t.Fatalf("%d bytes", len(b))
		}
		got, w := Parse(b)
		if got != c.r || w.More() != c.more || !w.Valid() || w.Plain() != c.plain {
			t.Errorf("Parse(Append(%+v, %v)) = %+v, more %v, valid %v, plain %v", c.r, c.more, got, w.More(), w.Valid(), w.Plain())
		}
	}
	b := Append(nil, Record{Kind: Entry}, false)
	b[8] ^= 1 << 3 // the magic's low bit
	if _, w := Parse(b); w.Valid() || w.Plain() {
		t.Errorf("a record with magic 4 reads as valid")
	}
	for size, want := range map[uint16]int{0: 8, 6: 8, 7: 16, 14: 16, 65535: 65544} {
		if got := PayloadSize(size); got != want {
			t.Errorf("PayloadSize(%d) = %d, want %d", size, got, want)
		}
	}
}
