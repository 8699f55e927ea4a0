// Package decode reads recorded runs: ParLOT traces and their .info
// function tables (through package parlot, the codec), uftrace
// recordings, the run.json manifest, and the
// "trace reader" of seeds/003 §4.1 and §4.4 — call frequencies, caller→callee
// edge frequencies, the call stack at any event and the full call/return
// listing, per thread, per process and per program.
//
// The entry point for later stages is Open, which lists a run directory
// (this project's run directories, the original ParLOT output, and uftrace
// recordings read directly) and interns every function name into a shared
// *trace.Table. Raw per-process IDs never leave this package: traces come
// out as trace.Symbol sequences. Names are interned by image identity, not
// path (names.go): the program's functions in image trace.Program, so two
// runs of one program recorded from different directories, or from
// binaries with different file names, compare; Run.Name shows them with the
// program's file name as the run recorded it ("oddeven:main").
//
//	symbols := trace.NewTable()
//	run, err := decode.Open("normal/", symbols, decode.Options{})
//	ids := run.Traces()
//	stats, err := run.Summarize(ids, true)         // streams, in parallel
//	err = run.ForEach(ids, func(i int, id trace.ID) error {
//		return run.Stream(id, func(chunk []trace.Symbol) error { … })
//	})
//	traces, err := run.Load(ids)                    // whole sequences in memory
//
// Decoding streams: memory does not grow with a trace's length, so info and
// stats summarise runs larger than memory. Work is spread over cores, and
// results never depend on scheduling.
package decode
