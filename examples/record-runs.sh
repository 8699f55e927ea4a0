#!/usr/bin/env bash
# Records the example runs committed under testdata/runs (make examples):
# the odd/even sort (seeds/002 §3.2.7) normal, with swapBug and with dlBug,
# ILCS (§3.4) normal and with each of its three bugs, and the C++ proxy
# stencil normal and with rank 3 skipping its halo exchange in step 5, the
# Fortran poisson code normal and hung; and
# into NOISE_DIR (default: testdata/noise beside OUT_DIR) the task farm, a
# program that varies by itself: two normal runs, one where worker 3 skips a
# verify() in its 5th task.
#
#   examples/record-runs.sh DIFFTRACE EXAMPLES_DIR OUT_DIR [NOISE_DIR]
set -euo pipefail
DT=$(realpath "$1")
EX=$(realpath "$2")
OUT=$3
NOISE=${4:-$(dirname "$OUT")/noise}
mkdir -p "$OUT" "$NOISE"

. "$(dirname "$0")/record-lib.sh"

record oddeven4-normal 4 -- "$EX/oddeven"
record oddeven-normal 16 -- "$EX/oddeven"
record oddeven-swapbug 16 -- "$EX/oddeven" --swap-bug 5 7
record oddeven-dlbug 16 --timeout 10s -- "$EX/oddeven" --deadlock-bug 5 7
record ilcs-normal 8 -- "$EX/ilcs"
record ilcs-critbug 8 -- "$EX/ilcs" --crit-bug 6 4
record ilcs-dlbug 8 --timeout 10s -- "$EX/ilcs" --count-bug 2
record ilcs-maxbug 8 -- "$EX/ilcs" --max-bug 0
record stencil-normal 8 -- "$EX/stencil"
record stencil-skipbug 8 --timeout 30s -- "$EX/stencil" --skip-bug 3 5
# A pthreads program of one process, whose bug flag only the main thread
# parses: worker 1 refines its 9th tile in 4 passes instead of 5.
record tpool-normal 1 -- "$EX/tpool"
record tpool-shortloop 1 -- "$EX/tpool" --short-loop 1 9
# A Fortran CG code of the new-user trial (examples/trial), whose bug flag
# every rank parses: rank 1 waits for a token no one sends in CG iteration
# 4 of step 5, and the run hangs.
"$EX/trial/build.sh" >/dev/null
record poisson-normal 4 -- "$EX/trial/bin/poisson-O0"
record poisson-hang 4 --timeout 10s -- "$EX/trial/bin/poisson-O0" --hang 1 5 4
OUT=$NOISE
record farm-1 8 -- "$EX/farm"
record farm-2 8 -- "$EX/farm"
record farm-skipverify 8 -- "$EX/farm" --skip-verify 3 5
du -sh "$OUT" "$NOISE"
