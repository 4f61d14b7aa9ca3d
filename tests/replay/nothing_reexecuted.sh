#!/usr/bin/env bash
# Usage: nothing_reexecuted.sh LOGGER REPLAYER PROGRAM
# Records PROGRAM reading a file and the time; deletes the file and waits; the replay must
# print exactly what the recording printed.
set -uo pipefail
logger=$1 replayer=$2 app=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'first line\nsecond line\n' >"$work/input.txt"
"$logger" -log:basename "$work/pb/t" -- "$app" "$work/input.txt" >"$work/rec.out" || exit 1
rm "$work/input.txt"
sleep 1.1
"$replayer" "$work/pb/t.0" >"$work/rep.out" 2>"$work/rep.err"
status=$?
grep -q '^replay: OK ' "$work/rep.err" || { cat "$work/rep.err"; exit 1; }
[ $status -eq 0 ] || exit 1
grep -q '^file: second line$' "$work/rep.out" || { echo "the file's contents are missing"; exit 1; }
if ! cmp -s "$work/rec.out" "$work/rep.out"; then
	diff "$work/rec.out" "$work/rep.out"
	exit 1
fi
cat "$work/rep.out"
