#!/usr/bin/env bash
# Usage: rep_fault.sh LOGGER REPLAYER PROGRAM
# A REP string instruction that faults partway (PROGRAM is tests/apps/rep_fault: 12288
# iterations of `rep stosb`, a fault at the 8193rd, the handler making the page writable):
# - the iterations count exactly, those left at the fault not counted ahead (-mix:
#   REP_STOSB 12288, not 16384);
# - under a region whose instruction count ends among the iterations (9000 instructions
#   from `before_fill`, so that the instruction runs in parts and faults in one), the
#   handler sees the app's %rcx and %rdi (the output is the native one), the region holds
#   exactly 9000 instructions and replays.
set -uo pipefail
logger=$1 replayer=$2 app=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

want=$("$app") || fail "natively: exit $?"
got=$("$logger" -log 0 -mix -omix "$work/mix" -- "$app") || fail "-mix: exit $?"
[ "$got" = "$want" ] || fail "-mix: output '$got', natively '$want'"
grep -q "^mix tid=0 mnemonic REP_STOSB 12288$" "$work/mix" ||
	fail "-mix: $(grep REP_STOSB "$work/mix"), not 12288 iterations"
echo "ok   -mix counts the 12288 iterations of the faulting rep stosb"

got=$("$logger" -log:basename "$work/r" -control start:enter_func:before_fill,stop:icount:9000 \
	-- "$app" 2>"$work/err") || fail "recording: exit $?"
[ "$got" = "$want" ] || fail "recording: output '$got', natively '$want'"
grep -q "wrote .*: 9000 instructions in 1 thread" "$work/err" ||
	fail "the region is not 9000 instructions: $(cat "$work/err")"
out=$("$replayer" -replay:echo 0 "$work/r.0" 2>&1)
grep -q '^replay: OK 9000 instructions' <<<"$out" || fail "replay: $out"
echo "ok   a region ending among the iterations, the fault in a part: native output," \
	"9000 instructions, replay OK"
