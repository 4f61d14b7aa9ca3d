#!/usr/bin/env bash
# Usage: divergence.sh LOGGER REPLAYER TAMPER PROGRAM SPIN_ON_INPUT
# Records PROGRAM, alters the first data the kernel gave it (through the format library),
# and expects the replay to say DIVERGED, with the thread and instruction count, exit 1.
set -uo pipefail
logger=$1 replayer=$2 tamper=$3 app=$4 spin=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$logger" -log:basename "$work/pb/good" -- "$app" 1000 >/dev/null || exit 1
"$tamper" "$work/pb/good.0" "$work/pb/bad.0" || exit 1
"$replayer" -replay:echo 0 "$work/pb/good.0" 2>&1 | grep -q '^replay: OK ' || { echo "the untouched pinball does not replay"; exit 1; }
out=$("$replayer" -replay:echo 0 "$work/pb/bad.0" 2>&1)
status=$?
echo "$out"
[ $status -eq 1 ] || { echo "expected exit 1, got $status"; exit 1; }
grep -Eq '^replay: DIVERGED at tid 0 icount [0-9]+: .+' <<<"$out" || { echo "no DIVERGED verdict"; exit 1; }

# The same control flow with other bytes written: cat copies a line the kernel gave it; the
# replay gets the line altered, and the verdict must see that the app wrote something else.
printf 'the recorded line\n' >"$work/line.txt"
"$logger" -q -log:basename "$work/pb/cat" -- cat "$work/line.txt" >/dev/null || exit 1
"$tamper" "$work/pb/cat.0" "$work/pb/cat_bad.0" "the recorded" || exit 1
out=$("$replayer" -replay:echo 0 "$work/pb/cat_bad.0" 2>&1)
status=$?
echo "$out"
[ $status -eq 1 ] || { echo "other bytes written: expected exit 1, got $status"; exit 1; }
grep -Eq '^replay: DIVERGED at tid 0 icount [0-9]+: write: the app writes other bytes than the recording did \(18 bytes to fd 1\)$' <<<"$out" ||
	{ echo "no DIVERGED verdict for other bytes written"; exit 1; }

# Altered so that the app spins for ever without a system call: the replay stops it past
# the recorded end (a single thread ending at its exit has its budget checked only where
# the code can loop) and says so.
printf 'ab\n' >"$work/ab.txt"
"$logger" -q -log:basename "$work/pb/spin" -- "$spin" <"$work/ab.txt" >/dev/null || exit 1
"$tamper" "$work/pb/spin.0" "$work/pb/spin_bad.0" "a" || exit 1
out=$(timeout 60 "$replayer" -replay:echo 0 "$work/pb/spin_bad.0" 2>&1)
status=$?
echo "$out"
[ $status -eq 1 ] || { echo "a replay spinning past its end: expected exit 1, got $status"; exit 1; }
grep -Eq '^replay: DIVERGED at tid 0 icount [0-9]+: the thread ran past icount [0-9]+, where the recording ends it$' <<<"$out" ||
	{ echo "no DIVERGED verdict for a replay spinning past its end"; exit 1; }
