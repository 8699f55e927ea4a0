#!/usr/bin/env bash
# Measures capture against uftrace alone (BENCHMARKS.md, section "capture:
# streaming"): the C++ proxy examples/stencil.cpp, 8 ranks, built at -O0 and
# at -O2, run under `uftrace record` writing its raw files — with uftrace's
# own buffer size, as a user would run it, and with capture's (--buffer
# 512K) — and under `difftrace capture`, in rounds of one of each (each
# round starting with the next of the three), REPS rounds. For
# each: wall time, peak storage used by the recording (sampled every 0.1 s:
# uftrace's data directories; capture's work directories, in /dev/shm, and
# run directory), calls recorded, and for capture the ParLOT bytes written
# per second per core. Below the table, each round's capture time over the
# uftrace times of the same round, and their median: rounds that run side
# by side share whatever else the machine was doing.
#
#   examples/bench-stream.sh [DIFFTRACE] [STEPS] [REPS] [RANKS]
#
# BUFFER (default 512K) sets the second uftrace-alone run's --buffer;
# SETSID=1 starts each rank's uftrace in a session of its own, as capture's
# worker once was (see BENCHMARKS.md).
#
# STEPS (default 1700) sets the run's length: about 7,500 calls per step and
# rank at -O0, so 1700 steps are about 100 million calls over 8 ranks
# (RANKS, default 8).
set -euo pipefail
DT=$(realpath "${1:-bin/difftrace}")
STEPS=${2:-1700}
REPS=${3:-3}
SRC=$(dirname "$(realpath "$0")")/stencil.cpp
NP=${4:-8}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tmp"

for o in O0 O2; do
	mpicxx "-$o" -g -pg -fno-omit-frame-pointer -DOMPI_SKIP_MPICXX=1 -o "$work/stencil-$o" "$SRC"
done
# uftrace alone, as capture runs it (capture adds --host and --port, the
# triggers that end a thread's pending calls, and with UFTRACE_BUFFER set here,
# its --buffer). With
# --keep-pid the program is the rank's process and uftrace's recorder its
# child, which goes on writing the recording after the program has ended:
# the wrapper, like capture, is the recorder's subreaper and waits for it,
# so the time is that of a complete recording.
cat >"$work/uftrace.sh" <<'WRAP'
#!/usr/bin/python3
import ctypes, os, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
d = sys.argv[1] + "." + os.environ.get("OMPI_COMM_WORLD_RANK", "0")
pid = os.fork()
if pid == 0:
    if os.environ.get("SETSID") == "1":
        os.setsid()
    os.environ["LD_BIND_NOW"] = "1"
    buf = ["--buffer", os.environ["UFTRACE_BUFFER"]] if os.environ.get("UFTRACE_BUFFER") else []
    os.execvp("uftrace", ["uftrace", "record"] + buf + ["--keep-pid", "--no-event", "-P", ".", "-d", d, "--"] + sys.argv[2:])
code = 1
while True:
    try:
        p, st = os.wait()
    except ChildProcessError:
        break
    if p == pid:
        code = os.waitstatus_to_exitcode(st)
sys.exit(code)
WRAP
chmod +x "$work/uftrace.sh"

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }
sum() { grep -o "\"$1\": [0-9]*" "$2" | awk '{s+=$2} END {print s+0}'; }

# peak FILE: samples the storage used under $work/out*, $work/tmp and
# capture's work directories in /dev/shm until killed, keeping the largest
# figure, in bytes, in FILE. (No trap: a TERM that arrived while bash was
# reading a command substitution once left the trap unparsed and the
# sampler running.)
peak() {
	set +e +o pipefail
	local max=0 now
	echo 0 >"$1"
	while :; do
		now=$(du -sb "$work"/out* "$work/tmp" /dev/shm/difftrace-uftrace-* 2>/dev/null | awk '{s+=$1} END {printf "%d\n", s}')
		if [ "$now" -gt "$max" ]; then
			max=$now
			echo "$max" >"$1"
		fi
		sleep 0.1
	done
}

# run MODE PROGRAM: one run; prints "wall peak_bytes calls parlot_bytes".
run() {
	local mode=$1 prog=$2 out="$work/out" t
	rm -rf "$work"/out* "$work"/tmp/*
	# The 2 GB an uftrace run leaves in the page cache would otherwise be
	# written back, and its files' blocks freed, while the next recording
	# runs: that of capture, which follows the uftrace runs in each round.
	sync
	peak "$work/peak" &
	local sampler=$!
	local TIMEFORMAT=%R
	case $mode in
	uftrace) t=$({ time SETSID=${SETSID:-0} mpirun -x SETSID -np $NP "$work/uftrace.sh" "$out" "$prog" --steps "$STEPS" >/dev/null 2>&1; } 2>&1) ;;
	uftrace-buf) t=$({ time UFTRACE_BUFFER=${BUFFER:-512K} mpirun -x UFTRACE_BUFFER -np $NP "$work/uftrace.sh" "$out" "$prog" --steps "$STEPS" >/dev/null 2>&1; } 2>&1) ;;
	capture) t=$({ time env -u TMPDIR mpirun -np $NP "$DT" capture -o "$out" -- "$prog" --steps "$STEPS" >/dev/null 2>&1; } 2>&1) ;;
	esac
	kill -KILL $sampler
	wait $sampler 2>/dev/null || true
	local calls=- bytes=-
	if [ "$mode" = capture ]; then
		calls=$(($(sum events "$out/run.json") / 2))
		bytes=$(sum bytes "$out/run.json")
	fi
	echo "$t $(cat "$work/peak") $calls $bytes"
}

declare -A paired=()
echo "| build | recording | wall time (median of $REPS) | peak storage | calls | ParLOT bytes | bytes/s per core | capture / uftrace | capture / uftrace --buffer 512K |"
echo "|---|---|--:|--:|--:|--:|--:|--:|--:|"
for o in O0 O2; do
	prog=$work/stencil-$o
	declare -A walls=() peaks=()
	calls=- bytes=-
	declare -A round=()
	pairs="" pairsb=""
	modes=(uftrace uftrace-buf capture)
	for r in $(seq 0 $((REPS - 1))); do
		# Each round starts with the next recording of the three, so
		# that none always comes after the same others.
		for i in 0 1 2; do
			mode=${modes[$(((r + i) % 3))]}
			read -r w p c b < <(run $mode "$prog")
			walls[$mode]+="$w"$'\n'
			peaks[$mode]+="$p"$'\n'
			round[$mode]=$w
			if [ "$mode" = capture ]; then calls=$c bytes=$b; fi
		done
		pairs+=$(printf '%.3f' "$(echo "${round[capture]} / ${round[uftrace]}" | bc -l)")$'\n'
		pairsb+=$(printf '%.3f' "$(echo "${round[capture]} / ${round[uftrace-buf]}" | bc -l)")$'\n'
	done
	paired[$o]="-$o, capture / uftrace by round: $(echo -n "$pairs" | tr '\n' ' ')(median $(echo -n "$pairs" | median)); capture / uftrace --buffer ${BUFFER:-512K}: $(echo -n "$pairsb" | tr '\n' ' ')(median $(echo -n "$pairsb" | median))"
	wu=$(echo -n "${walls[uftrace]}" | median)
	wc=$(echo -n "${walls[capture]}" | median)
	wb=$(echo -n "${walls[uftrace-buf]}" | median)
	pb=$(echo -n "${peaks[uftrace-buf]}" | median)
	pu=$(echo -n "${peaks[uftrace]}" | median)
	pc=$(echo -n "${peaks[capture]}" | median)
	printf '| -%s | uftrace record | %.2f s | %.0f MB | | | | | |\n' "$o" "$wu" "$(echo "$pu / 1000000" | bc -l)"
	printf '| -%s | uftrace record --buffer %s | %.2f s | %.0f MB | | | | | |\n' "$o" "${BUFFER:-512K}" "$wb" "$(echo "$pb / 1000000" | bc -l)"
	printf '| -%s | difftrace capture | %.2f s | %.1f MB | %s | %s | %.0f | %.3f | %.3f |\n' "$o" "$wc" "$(echo "$pc / 1000000" | bc -l)" \
		"$calls" "$bytes" "$(echo "$bytes / $wc / $(nproc)" | bc -l)" "$(echo "$wc / $wu" | bc -l)" "$(echo "$wc / $wb" | bc -l)"
	unset walls peaks round
done
echo
for o in O0 O2; do echo "${paired[$o]}"; done
