// Package record records runs of parallel programs as run directories of
// ParLOT traces: the `difftrace capture` runner that a launcher starts once
// per MPI rank (Main, Run), its uftrace backend, the conversion of uftrace
// recordings (ConvertUftrace, ConvertUftraceDirs), and the stack snapshots
// that keep the evidence of a hang (Snapshot). It is the capture stage of
// DiffTrace (seeds/002 §3.2, §3.2.7) done with uftrace where ParLOT used
// Pin (seeds/001 §3).
//
// A run directory holds, per rank R, the function table of R's traces
// (<prefix>.R.info, one section per image) and one compressed trace per
// thread T (<prefix>.R.T: thread 0 the main thread, then creation order),
// plus the manifest run.json (rundir.Manifest) that every rank's recorder
// updates under a file lock. The program's section comes first: readers
// take the first section for the program (decode interns its functions as
// trace.Program, whatever the program's path).
//
// A selective recording (Options.Only, capture --only SPEC) records only
// the calls a filter keeps, selected by uftrace while the program runs (see
// selection); run.json says what it recorded (rundir.Recorded).
//
// The program runs with LD_BIND_NOW=1 (see bindNow): with lazy binding,
// uftrace lost library calls that several threads made for the first time
// at once.
//
// uftrace writes a call's entry record only once something after it is
// recorded, so the call a deadlocked thread blocks in — the evidence of a
// hang — never reaches its data, even when the program is ended with
// SIGTERM; no uftrace option writes entries eagerly (its "finish" signal
// trigger only reaches threads that call a traced function again). Before
// killing a program that is still running, the recorder takes a stack
// snapshot (eu-stack) and later appends, for every thread that recorded
// nothing since, the traced call it was blocked in (see Snapshot and
// InnermostTraced). The limits of this:
//
//   - only the innermost traced call is recovered: traced calls entered
//     after the thread's last record and before that one (with no return in
//     between) stay missing;
//   - a library function that tail-calls another (PMPI_Finalize jumping to
//     ompi_mpi_finalize) leaves no frame to name the call by: run.json
//     then says where the thread was instead of adding a call;
//   - eu-stack needs permission to ptrace the program (root, or
//     kernel.yama.ptrace_scope = 0);
//   - a program killed from outside capture (SIGKILL to the program itself)
//     cannot be snapshotted: its traces end at its last recorded event.
//
// For an MPI program, the recorder also preloads its MPI wrapper (see
// peers.go): at a hang, run.json then says, per blocked thread, the MPI
// call it was in and the ranks it waited for, which no trace can hold.
package record
