#!/usr/bin/env bash
# Measures what recording costs (BENCHMARKS.md, section "capture"): for both
# examples, native run time against difftrace capture with the uftrace
# backend (main image, all images), the slowdown, the ParLOT bytes written
# per rank per second, and the compression ratio; then, on ILCS, how
# uftrace's own options change the cost.
#
#   examples/bench-capture.sh [DIFFTRACE] [EXAMPLES_DIR] [REPS]
#
# Every figure is the median of REPS runs (default 5).
set -euo pipefail
DT=$(realpath "${1:-bin/difftrace}")
EX=$(realpath "${2:-examples}")
REPS=${3:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }
# sum KEY FILE: the sum of every "KEY": N in a run.json.
sum() { grep -o "\"$1\": [0-9]*" "$2" | awk '{s+=$2} END {print s+0}'; }
f2() { printf %.2f "$1"; }

# measure NP MODE PROGRAM [ARGS]: MODE is native, main or all. Prints
# "wall cpu ns_per_CPU_Exec bytes events", medians over REPS runs: wall and
# CPU time (user + system, of every process of the job, recorders
# included), ILCS's worker CPU time per evaluation, and the ParLOT bytes
# and events written.
measure() {
	local np=$1 mode=$2
	shift 2
	local walls="" cpus="" calls="" bytes="" events=""
	for _ in $(seq "$REPS"); do
		local out="$work/run" cmd=()
		rm -rf "$out"
		case $mode in
		native) cmd=(mpirun -np "$np" "$@") ;;
		main) cmd=(mpirun -np "$np" "$DT" capture -o "$out" -- "$@") ;;
		all) cmd=(mpirun -np "$np" "$DT" capture --all-images -o "$out" -- "$@") ;;
		esac
		local TIMEFORMAT='%R %U %S' t
		t=$({ time "${cmd[@]}" >"$work/log" 2>/dev/null; } 2>&1)
		read -r real user sys <<<"$t"
		walls+="$real"$'\n'
		cpus+="$(echo "$user + $sys" | bc -l)"$'\n'
		calls+="$(sed -n 's/.*, \([0-9]*\) ns of worker CPU time each/\1/p' "$work/log")"$'\n'
		if [ "$mode" != native ]; then
			bytes+="$(sum bytes "$out/run.json")"$'\n'
			events+="$(sum events "$out/run.json")"$'\n'
		fi
	done
	echo "$(echo -n "$walls" | median) $(echo -n "$cpus" | median) $(echo -n "$calls" | grep . | median) $(echo -n "$bytes" | grep . | median) $(echo -n "$events" | grep . | median)"
}

echo "## capture cost ($(nproc) cores, $REPS runs each, medians)"
echo
echo "| example | ranks | recording | wall time | CPU time | CPU slowdown | CPU_Exec cost | call slowdown | ParLOT bytes | bytes/s per rank | ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for ex in "oddeven 16" "ilcs 8"; do
	set -- $ex
	prog=$1 np=$2
	args=()
	[ "$prog" = ilcs ] && args=(--stats)
	read -r w0 c0 n0 _ _ < <(measure "$np" native "$EX/$prog" "${args[@]}")
	echo "| $prog | $np | native | $(f2 "$w0") s | $(f2 "$c0") s | 1 | ${n0/-/} ${n0:+ns} | | | | |" | sed 's/|  ns |/| - |/'
	for mode in main all; do
		read -r w c n b e < <(measure "$np" "$mode" "$EX/$prog" "${args[@]}")
		cs="-"
		[ "$n" != - ] && [ "$n0" != - ] && cs=$(f2 "$(echo "$n / $n0" | bc -l)")
		echo "| $prog | $np | $mode images | $(f2 "$w") s | $(f2 "$c") s | $(f2 "$(echo "$c / $c0" | bc -l)") | $n${n:+ ns} | $cs | $b | $(printf %.0f "$(echo "$b / $np / $w" | bc -l)") | $(printf %.0f "$(echo "2 * $e / $b" | bc -l)") |" | sed 's/| - ns |/| - |/'
	done
done

echo
echo "## uftrace options on ilcs (8 ranks: worker CPU time per CPU_Exec call, and the raw recording)"
echo
echo "| uftrace record options | CPU_Exec cost | slowdown | raw recording |"
echo "|---|---|---|---|"
cat >"$work/wrap.sh" <<'WRAP'
#!/bin/sh
d=$1
shift
exec uftrace record -d "$d.$OMPI_COMM_WORLD_RANK" "$@"
WRAP
chmod +x "$work/wrap.sh"
read -r _ _ n0 _ _ < <(measure 8 native "$EX/ilcs" --stats)
echo "| (native) | $n0 ns | 1 | |"
for opts in "--no-event -P ." "-P ." "--no-event -P . --no-libcall" "--no-event -P . --nest-libcall" \
	"--no-event -P . -b 32k" "--no-event -P . -b 1m" "--no-event -P . --no-pltbind"; do
	calls="" sizes=""
	for _ in $(seq "$REPS"); do
		rm -rf "$work"/u.*
		# shellcheck disable=SC2086
		mpirun -np 8 "$work/wrap.sh" "$work/u" --keep-pid $opts "$EX/ilcs" --stats >"$work/log" 2>/dev/null
		calls+="$(sed -n 's/.*, \([0-9]*\) ns of worker CPU time each/\1/p' "$work/log")"$'\n'
		sizes+="$(du -sk "$work"/u.* | awk '{s+=$1} END {print s}')"$'\n'
	done
	n=$(echo -n "$calls" | median)
	sz=$(echo -n "$sizes" | median)
	echo "| \`$opts\` | $n ns | $(f2 "$(echo "$n / $n0" | bc -l)") | $((sz / 1024)) MiB |"
done
