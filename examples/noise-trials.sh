#!/usr/bin/env bash
# Tries rank's noise handling (README, "Programs that vary by themselves") on
# fresh recordings of examples/farm.c (or stencil.cpp): per trial, four normal runs
# and a faulty one whose bug is in a worker and task that change from trial
# to trial; then, for each trial, which trace leads rank's thread consensus
# when two normal runs are compared with a third (want: none), and with the
# faulty run given two, three and four normal runs (want: the bug's trace).
#
#   examples/noise-trials.sh DIFFTRACE EXAMPLES_DIR TRIALS [mpi|omp|order]
#
# mpi: 8 ranks, the bug --skip-verify W N (trace W.0).
# omp: 4 ranks × 4 OpenMP threads, 60 tasks, the bug --skip-critical W N
#      (trace W.0, the rank's main thread).
# With KEEP=DIR the recorded sets stay in DIR/1, DIR/2, … (normal runs a, b,
# c, e and faulty f), so that another version of difftrace can rank the
# same sets.
# order: examples/stencil.cpp with --any-order (halos unpacked as they
#      arrive), 8 ranks, the bug --skip-unpack W N (rank W leaves its south
#      halo stale in step N).
set -euo pipefail
DT=$(realpath "$1")
EX=$(realpath "$2")
TRIALS=${3:-6}
MODE=${4:-mpi}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ -n "${KEEP:-}" ]; then
	work=$KEEP # the sets stay, to be ranked again by another version
	mkdir -p "$work"
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi

PROG=farm
if [ "$MODE" = omp ]; then
	NP=4 ARGS=(--threads 4 --tasks 60) BUG=--skip-critical
elif [ "$MODE" = order ]; then
	NP=8 ARGS=(--any-order) BUG=--skip-unpack PROG=stencil
else
	NP=8 ARGS=() BUG=--skip-verify
fi

# first ARGS...: the trace that leads rank's thread consensus, or "-".
first() {
	"$DT" rank --no-session --rows 1 "$@" 2>/dev/null |
		sed -n 's/^consensus, threads: \([0-9.]*\) was the most suspicious.*/\1/p; s/^consensus, threads: \([0-9., ]*\) tie:.*/\1/p; s/^consensus, threads: no combination.*/-/p'
}

ok=(0 0 0 0)
for t in $(seq "$TRIALS"); do
	w=$((t % (NP - 1) + 1)) n=$((t % 4 + 2))
	d=$work/$t
	for r in a b c e; do
		mpirun -np "$NP" "$DT" capture -o "$d/$r" -- "$EX/$PROG" "${ARGS[@]}" >/dev/null 2>&1
	done
	mpirun -np "$NP" "$DT" capture -o "$d/f" -- "$EX/$PROG" "${ARGS[@]}" "$BUG" "$w" "$n" >/dev/null 2>&1
	noise=$(first "$d/a" "$d/c" --also-normal "$d/b")
	bug2=$(first "$d/a" "$d/f" --also-normal "$d/b")
	bug3=$(first "$d/a" "$d/f" --also-normal "$d/b" --also-normal "$d/c")
	bug4=$(first "$d/a" "$d/f" --also-normal "$d/b" --also-normal "$d/c" --also-normal "$d/e")
	echo "trial $t: bug in $w.0 (task $n) | 2 normal vs a 3rd: $noise | faulty with 2 normal: $bug2, 3: $bug3, 4: $bug4"
	[ "$noise" = - ] && ok[0]=$((ok[0] + 1))
	[ "$bug2" = "$w.0" ] && ok[1]=$((ok[1] + 1))
	[ "$bug3" = "$w.0" ] && ok[2]=$((ok[2] + 1))
	[ "$bug4" = "$w.0" ] && ok[3]=$((ok[3] + 1))
	[ -n "${KEEP:-}" ] || rm -rf "$d"
done
echo "of $TRIALS trials: no suspect between normal runs ${ok[0]}; the bug's trace first with 2, 3, 4 normal runs: ${ok[1]}, ${ok[2]}, ${ok[3]}"
