#!/usr/bin/env bash
# What capture's uftrace triggers cost per call (BENCHMARKS.md, "capture:
# streaming"): a single-threaded loop of 3 calls per iteration, built at
# -O0 here, recorded by uftrace alone as capture runs it (--buffer 512K
# --no-event -P .) without triggers, with capture's -T FUNC@finish triggers,
# and with a --signal trigger instead; REPS runs of each, alternating, and
# the user CPU time of each, sorted.
#
#   examples/bench-triggers.sh [ITERATIONS] [REPS]
set -euo pipefail
ITER=${1:-3000000}
REPS=${2:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/calls.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile long total;
__attribute__((noinline)) void leaf(long i) { total += i; }
__attribute__((noinline)) void pair(long i) { leaf(i); leaf(i + 1); }
int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	for (long i = 0; i < n; i++)
		pair(i);
	printf("%ld\n", total);
	return 0;
}
C
gcc -O0 -g -fno-omit-frame-pointer -o "$work/calls" "$work/calls.c"
T=()
for f in MPI_Abort mpi_abort_ exit _exit _Exit quick_exit abort; do T+=(-T "$f@finish"); done
declare -A times=()
for _ in $(seq "$REPS"); do
	for v in plain triggers signal; do
		case $v in
		plain) extra=() ;;
		triggers) extra=("${T[@]}") ;;
		signal) extra=(--signal SIGUSR2@finish) ;;
		esac
		rm -rf "$work/data"
		/usr/bin/time -o "$work/time" -f %U uftrace record --buffer 512K --no-event -P . "${extra[@]}" \
			-d "$work/data" "$work/calls" "$ITER" >/dev/null 2>&1
		u=$(tail -1 "$work/time")
		times[$v]+="$u "
	done
done
for v in plain triggers signal; do
	echo "$v: $(echo ${times[$v]} | tr ' ' '\n' | sort -g | tr '\n' ' ')"
done
