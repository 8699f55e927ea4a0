// Package capture writes ParLOT traces: the first stage of DiffTrace
// (seeds/002 §3.2, Fig. 3.1), in the role ParLOT's Pin tool plays in
// seeds/001 §3.
//
// It holds the glue to run programs under this project's Pin tool
// (pintool/); the traces are written with package parlot's Writer.
// Package capture/record runs programs under a recorder, one per MPI rank,
// and turns what it records into run directories.
package capture
