#!/usr/bin/env bash
# Usage: regions.sh LOGGER REPLAYER THREADS_APP MT_SCENARIOS
# Regions in the middle of multithreaded runs replay on their own, ten recordings each: an
# icount region counted over all threads, uniform regions (each thread's chain starts
# some), a region from a thread function's address; and twenty short regions from that
# address, which end before the other threads come to their start safe points: those that
# come while the stop is pending take part (waiting), or they would run beside the stopper's
# last block, unrecorded (with the racy counter's writes in it: a DIVERGED replay).
set -uo pipefail
logger=$1 replayer=$2 threads=$3 scenarios=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
replays() { # BASENAME MIN MAX: every pinball of a recording replays
	local n
	n=$(ls "$1".*.meta 2>/dev/null | wc -l)
	[ "$n" -ge "$2" ] && [ "$n" -le "$3" ] || fail "$1: $n pinballs, expected $2 to $3"
	for meta in "$1".*.meta; do
		out=$("$replayer" -replay:echo 0 "${meta%.meta}" 2>&1 | tail -1)
		grep -q '^replay: OK ' <<<"$out" || fail "${meta%.meta}: $out"
		echo "ok   ${meta##*/}: $out"
	done
}
for run in $(seq 1 10); do
	rm -rf "$work"/*
	"$logger" -log:basename "$work/icount" \
		-control start:icount:100000:global,stop:icount:600000:global \
		-- "$threads" >/dev/null || fail "recording the icount region"
	replays "$work/icount" 1 1
	"$logger" -log:basename "$work/uniform" -control uniform:300000:50000:3 \
		-- "$threads" >/dev/null || fail "recording uniform regions"
	replays "$work/uniform" 3 64
	"$logger" -log:basename "$work/addr" -control start:address:racy_add,stop:icount:50000 \
		-- "$scenarios" racy >/dev/null || fail "recording the address region"
	replays "$work/addr" 1 4
done
for run in $(seq 1 20); do
	rm -rf "$work"/*
	"$logger" -log:basename "$work/short" -control start:address:racy_add,stop:icount:500 \
		-- "$scenarios" racy >/dev/null || fail "recording the short address regions"
	replays "$work/short" 1 4
done
