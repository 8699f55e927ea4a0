#!/usr/bin/env bash
# Measures what capture costs (BENCHMARKS.md, section "Capture cost"): the
# C++ proxy examples/stencil.cpp, 8 ranks, at -O0 (about 10^8 calls) and at
# -O2 (a run of 10 s or more natively on a loaded 2-core node), each run
#
#   native         the program alone
#   uftrace        `uftrace record` alone, writing its files, as a user runs it
#   uftrace-512K   the same with capture's buffer size (--buffer 512K)
#   capture        difftrace capture (every call of the program)
#   only           difftrace capture --only mpi+omp
#
# in rounds of one of each (each round starting with the next mode), with
# the page cache flushed before every run (sync; echo 3 >
# /proc/sys/vm/drop_caches: needs root). For each mode: the median wall
# time, the median of the rounds' ratios to uftrace alone and to native (runs
# side by side share whatever else the machine was doing), the median CPU
# time (user + system) of the whole job, and for capture the CPU time of
# capture's own processes (from capture --verbose).
#
# Then the fixed cost per rank: STARTUP_ROUNDS rounds of one step (the run
# is all start and end), native, uftrace alone and capture.
#
#   examples/bench-capture-cost.sh [DIFFTRACE] [ROUNDS] [O0_STEPS] [O2_STEPS]
#
# Defaults: 5 rounds, 1700 steps at -O0 (about 7,500 calls per step and
# rank), 25000 at -O2.
set -euo pipefail
DT=$(realpath "${1:-bin/difftrace}")
ROUNDS=${2:-5}
O0_STEPS=${3:-1700}
O2_STEPS=${4:-25000}
STARTUP_ROUNDS=${STARTUP_ROUNDS:-9}
NP=8
SRC=$(dirname "$(realpath "$0")")/stencil.cpp
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for o in O0 O2; do
	mpicxx "-$o" -g -pg -fno-omit-frame-pointer -DOMPI_SKIP_MPICXX=1 -o "$work/stencil-$o" "$SRC"
done
# uftrace alone, as capture runs it but writing files: the rank's process
# forks uftrace record and, like capture, is the subreaper of uftrace's
# recorder (its child, with --keep-pid), so the time is that of a complete
# recording. In C, so that the wrapper itself costs next to nothing.
cat >"$work/wrap.c" <<'WRAP'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	const char *rank = getenv("OMPI_COMM_WORLD_RANK");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s.%s", argv[1], rank ? rank : "0");
	pid_t pid = fork();
	if (pid == 0) {
		char *args[64];
		int n = 0;
		args[n++] = "uftrace";
		args[n++] = "record";
		const char *buf = getenv("BENCH_BUFFER");
		if (buf && *buf) {
			args[n++] = "--buffer";
			args[n++] = (char *)buf;
		}
		args[n++] = "--keep-pid";
		args[n++] = "--no-event";
		args[n++] = "-P";
		args[n++] = ".";
		args[n++] = "-d";
		args[n++] = dir;
		args[n++] = "--";
		for (int i = 2; i < argc && n < 63; i++)
			args[n++] = argv[i];
		args[n] = NULL;
		setenv("LD_BIND_NOW", "1", 1);
		execvp("uftrace", args);
		_exit(127);
	}
	int code = 1, st;
	pid_t p;
	while ((p = wait(&st)) > 0)
		if (p == pid)
			code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return code;
}
WRAP
gcc -O2 -o "$work/wrap" "$work/wrap.c"

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }

# run MODE PROGRAM STEPS: one run, after flushing the page cache; prints
# "wall cpu own_cpu" (seconds; own_cpu is capture's own processes', - for
# the others).
run() {
	local mode=$1 prog=$2 steps=$3 out="$work/out"
	rm -rf "$work"/out*
	sync
	echo 3 >/proc/sys/vm/drop_caches
	local cmd
	case $mode in
	native) cmd=(mpirun -np $NP "$prog" --steps "$steps") ;;
	uftrace) cmd=(env BENCH_BUFFER= mpirun -x BENCH_BUFFER -np $NP "$work/wrap" "$out" "$prog" --steps "$steps") ;;
	uftrace-512K) cmd=(env BENCH_BUFFER=512K mpirun -x BENCH_BUFFER -np $NP "$work/wrap" "$out" "$prog" --steps "$steps") ;;
	capture) cmd=(env -u TMPDIR mpirun -np $NP "$DT" capture -v -o "$out" -- "$prog" --steps "$steps") ;;
	only) cmd=(env -u TMPDIR mpirun -np $NP "$DT" capture -v --only mpi+omp -o "$out" -- "$prog" --steps "$steps") ;;
	esac
	/usr/bin/time -f "%e %U %S" -o "$work/time" "${cmd[@]}" >/dev/null 2>"$work/err"
	read -r wall user sys <"$work/time"
	local own=-
	if [ "$mode" = capture ] || [ "$mode" = only ]; then
		own=$(grep -o 'used [0-9.]* ms of CPU' "$work/err" | awk '{s+=$2} END {printf "%.3f", s/1000}')
	fi
	echo "$wall $(echo "$user + $sys" | bc -l) $own"
}

# bench BUILD STEPS MODES...: ROUNDS rounds, prints the table rows.
bench() {
	local o=$1 steps=$2
	shift 2
	local modes=("$@") n=$#
	declare -A walls=() cpus=() owns=() vsu=() vsn=() this=()
	for r in $(seq 0 $((ROUNDS - 1))); do
		for i in $(seq 0 $((n - 1))); do
			local mode=${modes[$(((r + i) % n))]}
			read -r w c own < <(run "$mode" "$work/stencil-$o" "$steps")
			walls[$mode]+="$w"$'\n'
			cpus[$mode]+="$c"$'\n'
			owns[$mode]+="$own"$'\n'
			this[$mode]=$w
		done
		for m in "${modes[@]}"; do
			vsu[$m]+=$(echo "${this[$m]} / ${this[uftrace]}" | bc -l)$'\n'
			vsn[$m]+=$(echo "${this[$m]} / ${this[native]}" | bc -l)$'\n'
		done
		echo "-$o round $((r + 1)): $(for m in "${modes[@]}"; do printf '%s %s  ' "$m" "${this[$m]}"; done)" >&2
	done
	for m in "${modes[@]}"; do
		local own
		own=$(echo -n "${owns[$m]}" | { grep -v '^-$' || true; } | median)
		printf '| -%s | %s | %.2f s | %.3f | %.3f | %.2f s | %s |\n' "$o" "$m" \
			"$(echo -n "${walls[$m]}" | median)" "$(echo -n "${vsu[$m]}" | median)" "$(echo -n "${vsn[$m]}" | median)" \
			"$(echo -n "${cpus[$m]}" | median)" "$([ "$own" = - ] && echo - || printf '%.2f s' "$own")"
	done
}

echo "$(nproc) cores, load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds, page cache flushed before each run"
echo
echo "| build | recording | wall time (median) | / uftrace alone (median of rounds) | / native (median of rounds) | CPU time of the job | CPU time of capture's processes |"
echo "|---|---|--:|--:|--:|--:|--:|"
bench O0 "$O0_STEPS" native uftrace uftrace-512K capture only
bench O2 "$O2_STEPS" native uftrace uftrace-512K capture only

# The fixed cost per rank: one step, where the run is start and end.
echo
echo "Fixed cost, $NP ranks, one step (-O2), $STARTUP_ROUNDS rounds:"
echo
echo "| recording | wall time (median) | per rank over uftrace alone (median of rounds) | per rank over native (median of rounds) | CPU time of capture's processes per rank |"
echo "|---|--:|--:|--:|--:|"
ROUNDS=$STARTUP_ROUNDS
declare -A sw=() sdu=() sdn=() so=() st=()
modes=(native uftrace capture only)
for r in $(seq 0 $((ROUNDS - 1))); do
	for i in 0 1 2 3; do
		m=${modes[$(((r + i) % 4))]}
		read -r w _ own < <(run "$m" "$work/stencil-O2" 1)
		sw[$m]+="$w"$'\n'
		so[$m]+="$own"$'\n'
		st[$m]=$w
	done
	for m in "${modes[@]}"; do
		sdu[$m]+=$(echo "(${st[$m]} - ${st[uftrace]}) * 1000 / $NP" | bc -l)$'\n'
		sdn[$m]+=$(echo "(${st[$m]} - ${st[native]}) * 1000 / $NP" | bc -l)$'\n'
	done
done
for m in "${modes[@]}"; do
	own=$(echo -n "${so[$m]}" | { grep -v '^-$' || true; } | median)
	printf '| %s | %.2f s | %.0f ms | %.0f ms | %s |\n' "$m" "$(echo -n "${sw[$m]}" | median)" \
		"$(echo -n "${sdu[$m]}" | median)" "$(echo -n "${sdn[$m]}" | median)" \
		"$([ "$own" = - ] && echo - || printf '%.0f ms' "$(echo "$own * 1000 / $NP" | bc -l)")"
done
