#!/usr/bin/env bash
# Usage: transition.sh LOGGER REPLAYER PINBALL_TOOL MT_SCENARIOS
# Two threads reach the start mark at the same time: exactly one region starts, the other
# thread's start event is logged as ignored (with its thread, pc and icount) and counted in
# the pinball; the replay's instruction counts per thread are the recorded ones.
set -uo pipefail
logger=$1 replayer=$2 pinball=$3 app=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for run in 1 2 3 4 5; do
	rm -rf "$work/pb" "$work/log"
	"$logger" -log:basename "$work/pb/b" -controller_log "$work/log" \
		-control start:ssc:11223344,stop:ssc:55667788 -- "$app" both_start >/dev/null ||
		fail "recording"
	[ "$(ls "$work"/pb/*.meta | wc -l)" -eq 1 ] || fail "expected one pinball: $(ls "$work/pb")"
	[ "$(grep -c '^fired start ' "$work/log")" -eq 2 ] || fail "two start events fire: $(cat "$work/log")"
	grep -Eq '^ignored start tid=[0-9]+ icount=[0-9]+ pc=0x[0-9a-f]+ alarm="start:ssc:11223344"' "$work/log" ||
		fail "the second start is not logged as ignored: $(cat "$work/log")"
	"$pinball" info "$work/pb/b.0" | grep -Eq '^  ignored +[1-9][0-9]* controller events' ||
		fail "pinball info does not count the ignored event"
	"$replayer" -replay:echo 0 -icount -oicount "$work/icount" "$work/pb/b.0" 2>"$work/rep.err" ||
		fail "replay: $(cat "$work/rep.err")"
	# Recorded end counts per thread, against the replay's (the replayer numbers threads in
	# its own order: compare the sorted lists).
	recorded=$("$pinball" dump "$work/pb/b.0" --part end | sed -n 's/^end tid=[0-9]* icount=\([0-9]*\) .*/\1/p' | sort -n | tr '\n' ' ')
	replayed=$(sed -n 's/^icount tid=[0-9]* \([0-9]*\)$/\1/p' "$work/icount" | sort -n | tr '\n' ' ')
	[ "$recorded" = "$replayed" ] || fail "per-thread counts: recorded $recorded, replayed $replayed"
done
echo "one region each time, the other start ignored and logged; per-thread counts $recorded"
