#!/bin/bash
# Records every planted-bug case of cases.txt and reports it again:
#   ./run-all.sh /path/to/difftrace [CASE-ID...]
# For each case: one faulty run (the normal run of its program is recorded once),
# then, in a fresh directory, `difftrace rank normal faulty` and exactly the
# `difftrace diffnlr ...` command that rank suggests ("how it changed: ..."), with --color never.
# Output: runs/ (run directories), results/ID/ (rank.txt, diffnlr.txt, timings), results/summary.tsv
set -u
DT=$(realpath "${1:?usage: run-all.sh DIFFTRACE [CASE...]}")
shift
ONLY=" $* "
cd "$(dirname "$(realpath "$0")")"
HERE=$PWD
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2 OMP_PROC_BIND=false
./build.sh || exit 1
# a full run starts afresh (the normal runs are recorded again, once per program)
[ "$ONLY" = "  " ] && rm -rf runs results
mkdir -p runs results

record() { # record DIR BIN NP TIMEOUT ARGS...
    local dir=$1 bin=$2 np=$3 to=$4; shift 4
    rm -rf "runs/$dir"
    local t0=$(date +%s.%N)
    if [ "$np" = 0 ]; then
        "$DT" capture -o "runs/$dir" --timeout "$to" -- "bin/$bin" "$@" </dev/null >"runs/$dir.out" 2>&1
    else
        mpirun --oversubscribe -np "$np" "$DT" capture -o "runs/$dir" --timeout "$to" -- "bin/$bin" "$@" </dev/null >"runs/$dir.out" 2>&1
    fi
    local rc=$?
    echo "$(basename "$dir") exit $rc, $(echo "$(date +%s.%N) - $t0" | bc) s" >>"runs/$dir.out"
}

normal_of() { echo "$1-np$2-normal"; }

# analyse ID VARIANT NORMAL-DIR: in a fresh directory results/ID[-VARIANT], rank NORMAL against runs/ID,
# then run exactly the diffnlr command rank suggests, and add a line to results/summary.tsv
analyse() {
    local id=$1 variant=$2 normal=$3 r=results/$1
    [ "$variant" != plain ] && r=results/$1-$variant
    rm -rf "$r"; mkdir -p "$r"
    (
        cd "$r"
        echo "$id | $bin | np $np | $args | $truth" >case.txt
        echo "normal run: $normal" >>case.txt
        t0=$(date +%s.%N)
        "$DT" rank "$HERE/runs/$normal" "$HERE/runs/$id" </dev/null >rank.txt 2>rank.err
        echo "rank exit $?" >>rank.err
        t1=$(date +%s.%N)
        cmd=$(grep -m1 'how it changed: difftrace diffnlr' rank.txt | sed 's/.*how it changed: difftrace //')
        if [ -n "$cmd" ]; then
            echo "difftrace $cmd --color never" >diffnlr.cmd
            eval "\"$DT\" $cmd --color never" </dev/null >diffnlr.txt 2>diffnlr.err
            echo "diffnlr exit $?" >>diffnlr.err
        else
            echo "(no diffnlr suggested)" >diffnlr.cmd
            : >diffnlr.txt
        fi
        t2=$(date +%s.%N)
        # for comparison only: the diffnlr of the trace where the bug was planted, as a user who names it gets it
        planted=$(echo "$truth" | sed -n 's/^trace \([0-9.]*\):.*/\1/p')
        "$DT" diffnlr "$planted" --color never </dev/null >diffnlr-planted.txt 2>diffnlr-planted.err
        first=$(grep -m1 'first difference' diffnlr.txt)
        printf '%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\n' "$id" "$variant" "$(cat diffnlr.cmd)" "$first" "$(wc -l <diffnlr.txt)" \
            "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" >>"$HERE/results/summary.tsv"
    )
    tail -1 results/summary.tsv
}

[ -f results/summary.tsv ] || printf 'id\tnormal\tsuggested\tfirst difference\tlines\trank s\tdiffnlr s\n' >results/summary.tsv
grep -v '^#' cases.txt | while IFS='|' read -r id bin np to args truth; do
    id=$(echo $id); bin=$(echo $bin); np=$(echo $np); to=$(echo $to); args=$(echo $args); truth=$(echo $truth)
    [ "$ONLY" != "  " ] && [[ "$ONLY" != *" $id "* ]] && continue
    n=$(normal_of "$bin" "$np")
    if [ ! -f "runs/$n/run.json" ]; then
        echo "== recording $n"
        record "$n" "$bin" "$np" 120s
    fi
    echo "== $id: $bin $args"
    record "$id" "$bin" "$np" "$to" $args
    # plain: the normal run without arguments, as the brief asks
    analyse "$id" plain "$n"
    # sameargs: a second normal run given the same bug flag aimed at a rank/worker that does not
    # exist (99), so that both runs parse the same command line; it tells the argument parsing
    # apart from the rest of the analysis
    same=$(echo "$args" | awk '{ $2 = 99; print }')
    record "$id-normal-sameargs" "$bin" "$np" 120s $same
    analyse "$id" sameargs "$id-normal-sameargs"
done
