#!/usr/bin/env bash
# Usage: debugtrace.sh LOGGER REPLAYER EXACT_APP SIEVE_APP
# -debugtrace on the logger and the replayer:
#  - the lines of tests/apps/champsim_exact that show memory and registers, exactly (addresses
#    from its symbols), and one line per instruction (a REP string instruction: one line);
#  - the logger's trace of a recorded run equals the replayer's trace of its pinball (but
#    for the flags right after a syscall, which the JIT does not give the same way in a run
#    and in a replay);
#  - with -control on the replayer, the lines are exactly those of the whole trace whose
#    icount lies in the region the controller reports (its -controller_log); with -control
#    on the logger, its lines are those of the region's pinball replayed;
#  - gzip output, and an unwritable output is one line and exit 2.
set -uo pipefail
logger=$1 replayer=$2 exact=$3 sieve=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

sym() { nm "$exact" | awk -v s="$1" '$3 == s { print $1 }'; }
buf=$((0x$(sym buf))) top=$((0x$(sym stack_top))) start=$((0x$(sym _start))) leaf=$((0x$(sym leaf)))
"$logger" -log:basename pb/exact -debugtrace -odebugtrace logger.dt -- "$exact" >/dev/null 2>&1 ||
	bad "recording champsim_exact"
"$replayer" -debugtrace -odebugtrace replay.dt.gz pb/exact.0 >/dev/null 2>&1 || bad "replaying"
gzip -dc replay.dt.gz >replay.dt
expected=$(printf '%s\n' \
	"0 7 0x$(printf %x $((start + 23))): mov qword ptr [rdi], 0x05 | W 0x$(printf %x $buf)/8=0x5" \
	"0 9 0x$(printf %x $((start + 34))): push rax | W 0x$(printf %x $((top - 8)))/8=0x0 | rsp=0x$(printf %x $((top - 8)))" \
	"0 14 0x$(printf %x $((start + 43))): call 0x$(printf %016X $leaf) | W 0x$(printf %x $((top - 8)))/8=0x$(printf %x $((start + 48))) | rsp=0x$(printf %x $((top - 8)))" \
	"0 21 0x$(printf %x $((start + 70))): mov rdx, fs:[0x0000000000000010] | R 0x$(printf %x $((buf + 16)))/8=0x0 | rdx=0x0")
got=$(grep -E '^0 (7|9|14|21) ' replay.dt)
[ "$got" = "$expected" ] || { bad "champsim_exact's lines"; diff <(echo "$expected") <(echo "$got"); }
lines=$(wc -l <replay.dt)
[ "$lines" = 36 ] || bad "$lines lines for 37 instructions, two of them one REP stosb"
# The flags a syscall leaves differ between a run and a replay (see above).
strip() { sed -E '/: syscall /s/ rflags=0x[0-9a-f]+//' "$1"; }
cmp -s <(strip logger.dt) <(strip replay.dt) || { bad "logger and replayer traces differ"; diff logger.dt replay.dt | head; }

"$logger" -log:basename pb/sieve -- "$sieve" 3000 >/dev/null 2>&1 || bad "recording demo_sieve"
"$replayer" -replay:echo 0 -debugtrace -odebugtrace whole.dt pb/sieve.0 2>/dev/null || bad "replay"
"$replayer" -replay:echo 0 -debugtrace -odebugtrace region.dt \
	-control start:icount:5000,stop:icount:7000 -controller_log control.log pb/sieve.0 \
	2>/dev/null || bad "replay with -control"
fired() { sed -nE "s/^fired $1 tid=0 icount=([0-9]+) .*/\1/p" control.log; }
from=$(fired start) to=$(fired stop)
awk -v a="$from" -v b="$to" '$2 >= a && $2 < b' whole.dt >expected.dt
if [ -z "$from" ] || [ ! -s region.dt ] || ! cmp -s expected.dt region.dt; then
	bad "the region's lines are not those of the whole trace in [$from, $to)"
fi
# The logger's -debugtrace follows its -control region too: its lines (counted from the
# program's start) are those of the region's pinball replayed (counted from the region's).
"$logger" -log:basename pb/region -debugtrace -odebugtrace logger_region.dt \
	-control start:icount:5000,stop:icount:7000 -- "$sieve" 3000 >/dev/null 2>&1 ||
	bad "recording a region with -debugtrace"
"$replayer" -replay:echo 0 -debugtrace -odebugtrace replay_region.dt pb/region.0 2>/dev/null ||
	bad "replaying the region"
first=$(awk 'NR == 1 { print $2 }' logger_region.dt)
awk -v d="$first" '{ $2 -= d; print }' logger_region.dt >shifted.dt
# (the region starts where the thread's block at icount 5000 ends: the global transition)
if [ "${first:-0}" -lt 4900 ] || [ "$first" -gt 5100 ] || [ "$(wc -l <shifted.dt)" -lt 1000 ] ||
	! cmp -s shifted.dt replay_region.dt; then
	bad "the logger's region trace (from icount $first) is not the region's replayed"
fi
out=$("$replayer" -debugtrace -odebugtrace nodir/x pb/sieve.0 2>&1)
status=$?
if [ $status -ne 2 ] || [ "$(wc -l <<<"$out")" -ne 1 ] || ! grep -q "cannot write '$work/nodir/x'" <<<"$out"; then
	bad "an unwritable -odebugtrace: exit $status: $out"
fi
[ $fail = 0 ] && echo "ok: champsim_exact's lines, logger = replayer, -control regions on both, errors"
exit $fail
