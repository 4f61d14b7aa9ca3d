#!/usr/bin/env bash
# Usage: region_block_end.sh LOGGER REPLAYER PINBALL_TOOL PROGRAM
# The region starts and stops at the end of the basic block in which its event fired
# (seed 000's transition), also where the JIT translated that block together with the
# blocks it falls through to (PROGRAM is tests/apps/icount_chain). start:icount:5 fires
# at the start of the block of instructions 5-7 (add; test; jnz), which falls through to
# `second_add`: the region's first instruction, with %esi = 3 and %ecx = 300.
set -uo pipefail
logger=$1 replayer=$2 pinball=$3 app=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

. "$(dirname "$0")/../support/pinball_state.sh"
"$logger" -log:basename "$work/r" -control start:icount:5,stop:icount:50 -- "$app" ||
	fail "recording: exit $?"
start=$("$pinball" dump "$work/r.0" --part threads)
[ "$(field rip "$start")" = "$(symbol "$app" second_add)" ] && [ "$(field rsi "$start")" = 0x3 ] &&
	[ "$(field rcx "$start")" = 0x12c ] ||
	fail "the region starts at rip=$(field rip "$start") rsi=$(field rsi "$start")" \
		"rcx=$(field rcx "$start"), not at second_add ($(symbol "$app" second_add)) with 3 and 300"
out=$("$replayer" -replay:echo 0 "$work/r.0" 2>&1)
grep -q '^replay: OK 49 instructions' <<<"$out" || fail "replay: $out"
echo "ok   the region starts at second_add, the end of the event's block; replay OK"
