#!/usr/bin/env bash
# Usage: group_count.sh LOGGER REPLAYER PROGRAM
# A whole run of PROGRAM (tests/apps/icount_group: 2408 instructions, through count groups
# left early and entered in their middle) records exactly its instruction count, and its
# replay runs exactly as many.
set -uo pipefail
logger=$1 replayer=$2 app=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

rec=$("$logger" -log:basename "$work/r" -- "$app" 2>&1) || fail "recording: exit $?: $rec"
grep -q ': 2408 instructions in 1 thread' <<<"$rec" || fail "recording: $rec"
out=$("$replayer" -replay:echo 0 "$work/r.0" 2>&1)
grep -q '^replay: OK 2408 instructions' <<<"$out" || fail "replay: $out"
echo "ok   recorded and replayed 2408 instructions"
