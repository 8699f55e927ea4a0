// Package pprof writes the call paths of traces as a pprof profile
// (github.com/google/pprof/profile, the profile.proto format), for
// "go tool pprof" and the other viewers of that format: its flame graph,
// its top and tree listings, and -diff_base between two runs, which shows
// which call paths a bug made more or less frequent.
//
// A sample is one call path of one thread, leaf first as pprof wants, with
// numeric labels rank and thread (so -tagfocus=rank=3 picks a rank) and
// two values:
//
//   - calls (count, the default): how many times that exact call path was
//     entered. pprof's flat column is then the calls of a function from
//     that path, its cum column every call made within them as well, and
//     a flame graph's widths the calls made under each path.
//   - events (count): the events, one tick each, during which that call
//     path was the innermost call shown. Its cum column is the events
//     between the calls' entries and exits (the width of their slices in
//     package chrome's timelines); a call still open when its trace ended
//     counts up to that end.
//
// Each function is one Function, named as difftrace's tables name it
// (trace.Table.Label: demangled, no parameter lists unless needed), with
// its symbol as linked for SystemName and its image's file name for
// Filename, and one Location. With a filter, only the calls it keeps make
// paths, nested as they were among themselves.
//
// Writer is modelled on compress/flate's Writer: NewWriter, one Trace per
// traced thread fed with its events chunk by chunk (traces may be counted
// at the same time on several goroutines), and Close, which writes the
// profile. AddRun counts the traces of a run on all cores.
package pprof
