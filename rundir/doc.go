// Package rundir is the run directory every recorder writes and every
// reader reads: the run.json model (Manifest, one Rank per process, one
// Thread per trace), its checked reading and its atomic writing, the names
// of the trace files (<prefix>.<rank>.info, <prefix>.<rank>.<thread>), and
// how a rank ended, in words. capture and the generators write runs with
// it, decode reads them; it imports no reader and no writer of traces.
package rundir
