#!/usr/bin/env bash
# Usage: repeat.sh LOGGER REPLAYER TIMES -- PROGRAM [ARGS...]
# Records a multithreaded program once and replays the pinball TIMES times, on one core
# and on every core in turn: each replay gives the same verdict, the same output and the
# same instruction counts per thread (-icount).
set -uo pipefail
logger=$1 replayer=$2 times=$3
shift 3
[ "${1:-}" = "--" ] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$logger" -log:basename "$work/pb" -- "$@" >"$work/rec.out" 2>/dev/null || { echo "recording failed"; exit 1; }
first=""
for i in $(seq 1 "$times"); do
	cores=""
	[ $((i % 2)) -eq 1 ] && cores="taskset -c 0"
	$cores "$replayer" -icount -oicount "$work/icount" "$work/pb.0" >"$work/rep.out" 2>"$work/rep.err"
	status=$?
	verdict=$(grep '^replay: ' "$work/rep.err")
	this="$status|$verdict|$(cat "$work/icount")"
	if [ $status -ne 0 ] || ! grep -q '^replay: OK ' <<<"$verdict" || ! cmp -s "$work/rec.out" "$work/rep.out"; then
		echo "replay $i (${cores:-all cores}) failed (exit $status): $verdict"
		exit 1
	fi
	if [ -z "$first" ]; then
		first=$this
	elif [ "$this" != "$first" ]; then
		echo "replay $i (${cores:-all cores}) differs from the first:"
		diff <(echo "$first") <(echo "$this")
		exit 1
	fi
done
echo "$times replays alike: $verdict; $(grep -c '^icount tid' "$work/icount") threads counted"
