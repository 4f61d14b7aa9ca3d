#!/usr/bin/env bash
# Usage: replay_symbols.sh LOGGER REPLAYER PINBALL_TOOL PROGRAM
# Symbol alarms on a replay: a whole-run pinball of PROGRAM (a dynamic program printing with
# printf) replayed with -control start:address:SYM and stop:address:SYM, for a function of
# the program and one of libc (mapped during the region: the pinball names the file of each
# mmap, format 1.5). Each alarm fires (the counts before and after SYM add up to the whole
# replay's), and the counts equal those of the same alarms on the recorded run itself.
set -uo pipefail
logger=$1 replayer=$2 pinball=$3 program=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
total() { sed -n 's/^icount total \([0-9]*\)$/\1/p' "$1"; }
# (gdb_target exits with 30 % 7)
"$logger" -log:basename "$work/pb" -icount -oicount "$work/rec" -- "$program" 4 >/dev/null 2>&1
[ -f "$work/pb.0.meta" ] || fail "recording"
"$pinball" dump "$work/pb.0" --part events.0 >"$work/events"
grep -q 'path=/.*libc' "$work/events" || fail "the pinball does not name the libc it mapped"
"$replayer" -replay:echo 0 -icount -oicount "$work/all" "$work/pb.0" 2>/dev/null || fail "replay"
all=$(total "$work/all")
[ "$all" = "$(total "$work/rec")" ] || fail "whole replay $all, recording $(total "$work/rec")"
for sym in accumulate printf; do
	for edge in start stop; do
		"$replayer" -replay:echo 0 -icount -oicount "$work/$edge" -control "$edge:address:$sym" \
			"$work/pb.0" 2>/dev/null || fail "replay with $edge:address:$sym"
	done
	after=$(total "$work/start") before=$(total "$work/stop")
	[ "$after" -gt 0 ] && [ "$before" -gt 0 ] && [ $((after + before)) -eq "$all" ] ||
		fail "$sym: $before before and $after from it, of $all"
	# The same alarms on a run of the program itself (a run like the recorded one).
	"$logger" -log 0 -icount -oicount "$work/native" -control "start:address:$sym" -- \
		"$program" 4 >/dev/null 2>&1
	[ "$(total "$work/native")" = "$after" ] ||
		fail "$sym: $after in the replay, $(total "$work/native") in a run"
	echo "ok   $sym: $before instructions before it, $after from it, as in a run"
done
