#!/usr/bin/env bash
# Usage: rep_iterations.sh LOGGER REPLAYER PINBALL_TOOL PROGRAM
# Instruction-count events inside REP string instructions fall at an exact iteration, as
# between blocks of one instruction each (PROGRAM is tests/apps/rep_iterations: 100000
# iterations of `rep stosb` from instruction 4, 50000 of `rep movsb` from 100007, 30001 of
# `repe cmpsb` from 150011). An event fires at the block whose instruction would take the
# count past its target, and the region begins or ends at that block's end (seed 000):
# start:icount:50000 fires before instruction 50001 (iteration 49998 of the stosb), the
# region starts at instruction 50002 (%rcx = 100000 - 49998 = 50002 left) and holds
# exactly the 120000 instructions asked, its end inside the cmpsb; replays stop there.
set -uo pipefail
logger=$1 replayer=$2 pinball=$3 app=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

. "$(dirname "$0")/../support/pinball_state.sh"

# region CONTROL START_ICOUNT START_SYMBOL RCX STOP_ICOUNT STOP_SYMBOL LENGTH (STOP_*: - for
# none)
region() {
	local control=$1 start_at=$2 start_sym=$3 rcx=$4 stop_at=$5 stop_sym=$6 length=$7
	rm -f "$work"/r.* "$work/log"
	"$logger" -log:basename "$work/r" -controller_log "$work/log" -control "$control" \
		-- "$app" 2>"$work/err"
	local status=$?
	[ "$status" = 15 ] || fail "$control: exit $status, not 15 (natively)"
	local stop_event="^fired start" # (no stop: the region ends at the exit)
	[ "$stop_at" = - ] || stop_event="^fired stop tid=0 icount=$stop_at pc=$(symbol "$app" "$stop_sym") "
	grep -q "^fired start tid=0 icount=$start_at pc=$(symbol "$app" "$start_sym") " "$work/log" &&
		grep -q "$stop_event" "$work/log" ||
		fail "$control: events not at $start_at ($start_sym) and $stop_at ($stop_sym):" \
			"$(cat "$work/log")"
	grep -q "wrote .*: $length instructions in 1 thread" "$work/err" ||
		fail "$control: the region is not $length instructions: $(cat "$work/err")"
	local start
	start=$("$pinball" dump "$work/r.0" --part threads)
	[ "$(field rip "$start")" = "$(symbol "$app" "$start_sym")" ] && [ "$(field rcx "$start")" = "$rcx" ] ||
		fail "$control: the region starts at rip=$(field rip "$start")" \
			"rcx=$(field rcx "$start"), not at $start_sym with rcx=$rcx"
	local out
	out=$("$replayer" -replay:echo 0 "$work/r.0" 2>&1)
	grep -q "^replay: OK $length instructions" <<<"$out" || fail "$control: replay: $out"
	echo "ok   $control: events at $start_at and $stop_at, $length instructions from" \
		"$start_sym with rcx=$rcx, replay OK"
}

region start:icount:50000,stop:icount:120000 50000 fill 0xc352 170000 compare 120000
# inside one instruction: the movsb's iteration 19995 (instruction 120001) is the event's
region start:icount:120000,stop:icount:100 120000 move 0x7535 120100 move 100
# a region of one iteration
region start:icount:7,stop:icount:1 7 fill 0x1869b 8 fill 1
# a part that REPE's condition ends early (the cmpsb's last iteration is 180011): the
# region runs to the program's exit, %rcx whole (the exit status)
region start:icount:179990,stop:icount:1000 179990 compare 0x2723 - - 23
