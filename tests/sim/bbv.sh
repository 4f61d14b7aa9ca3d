#!/usr/bin/env bash
# Usage: bbv.sh LOGGER REPLAYER PHASES_APP THREADS_APP
# -bbv on tests/apps/phases (6,000,008 instructions): the vectors' instructions add up to
# -icount's count, every interval but the last holds the interval's instructions to a
# block's length, the three phases' intervals use disjoint loop blocks, the logger (-log 0)
# and the replayer of the recorded pinball write the same vectors, and a multithreaded
# program gets one file per thread.
set -uo pipefail
logger=$1 replayer=$2 app=$3 threads=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
"$logger" -log:basename pb/ph -bbv -obbv logger.bb -bbv:interval 100000 -- "$app" ||
	bad "recording with -bbv"
"$replayer" -replay:echo 0 -icount -oicount icount -bbv -obbv replay.bb -bbv:interval 100000 pb/ph.0 \
	2>/dev/null || bad "replaying with -bbv"
sums=$(awk '{ s = 0; for (i = 1; i <= NF; i++) { split($i, a, ":"); s += a[3] } print s }' replay.bb)
total=$(echo "$sums" | awk '{ t += $1 } END { print t }')
grep -qx "icount total $total" icount || bad "the vectors hold $total instructions; $(cat icount)"
lines=$(echo "$sums" | wc -l)
[ "$lines" = 61 ] || bad "$lines intervals for 6000008 instructions in intervals of 100000"
off=$(echo "$sums" | head -n -1 | awk '$1 < 100000 - 5 || $1 > 100000 + 5' | wc -l)
[ "$off" = 0 ] || bad "$off intervals are not 100000 instructions to a block's length"
# Blocks of the middle of each phase (intervals 10, 30, 50): no block in two of them.
blocks() { sed -n "$1p" replay.bb | tr ' ' '\n' | awk -F: 'NF == 3 { print $2 }' | sort; }
shared=$(cat <(blocks 11) <(blocks 31) <(blocks 51) | uniq -d | wc -l)
[ "$shared" = 0 ] || bad "$shared blocks appear in more than one phase's interval"
cmp -s logger.bb replay.bb || bad "the logger's and the replayer's vectors differ"
"$logger" -log 0 -bbv -obbv mt.bb -bbv:interval 10000 -- "$threads" >/dev/null 2>&1 ||
	bad "-bbv on a multithreaded program"
[ -s mt.bb ] && [ -s mt.bb.tid1 ] || bad "no per-thread files: $(ls)"
out=$("$replayer" -bbv -bbv:interval 0 pb/ph.0 2>&1)
status=$?
[ $status -eq 2 ] && [ "$out" = "replayer: error: -bbv:interval must be at least 1" ] ||
	bad "-bbv:interval 0: exit $status: $out"
[ $fail = 0 ] && echo "ok: $total instructions in $lines intervals; phases apart; logger = replayer; per-thread files"
exit $fail
