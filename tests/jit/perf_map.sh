#!/usr/bin/env bash
# Usage: perf_map.sh LOGGER PROGRAM
# -jit:perf_map 1 writes /tmp/perf-PID.map: a line "START SIZE app 0xPC [FILE+0xOFF]" per
# translation (as many as -jit:stats counts fragments), PROGRAM's own code named after its
# file; a forked child's file begins with its parent's lines; no file without the knob.
set -uo pipefail
logger=$1 program=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "perf_map: $*"; exit 1; }

"$logger" -log 0 -jit:perf_map 1 -jit:stats 1 -- "$program" 1000 >/dev/null 2>"$work/err" &
pid=$!
wait $pid || fail "the program failed: $(cat "$work/err")"
map=/tmp/perf-$pid.map
[ -f "$map" ] || fail "no $map"
mv "$map" "$work/map"
fragments=$(sed -n 's/.*jit stats: fragments \([0-9]*\),.*/\1/p' "$work/err")
lines=$(wc -l <"$work/map")
[ -n "$fragments" ] && [ "$lines" -eq "$fragments" ] ||
	fail "$lines lines for ${fragments:-?} fragments"
bad=$(grep -cvE '^[0-9a-f]+ [0-9a-f]+ app 0x[0-9a-f]+( [^ ]+\+0x[0-9a-f]+)?$' "$work/map")
[ "$bad" -eq 0 ] || fail "$bad malformed lines, such as: $(grep -vE '^[0-9a-f]+ [0-9a-f]+ app 0x' "$work/map" | head -1)"
grep -q " $(basename "$program")+0x" "$work/map" || fail "no line names $(basename "$program")"

"$logger" -log 0 -jit:perf_map 1 -- bash -c \
	"(echo \$BASHPID >$work/child); echo \$\$ >$work/parent" >/dev/null 2>&1 ||
	fail "bash failed"
child=/tmp/perf-$(cat "$work/child").map parent=/tmp/perf-$(cat "$work/parent").map
mv "$child" "$work/child.map" 2>/dev/null || fail "no map for the forked child"
mv "$parent" "$work/parent.map" 2>/dev/null || fail "no map for the parent"
# The parent's lines up to the fork: at least its start-up's, on top of the child's file.
head -n 1000 "$work/parent.map" | cmp -s - <(head -n 1000 "$work/child.map") ||
	fail "the child's map does not begin with its parent's lines"

"$logger" -log 0 -- "$program" 1000 >/dev/null 2>&1 &
pid=$!
wait $pid
[ ! -e /tmp/perf-$pid.map ] || fail "a map without -jit:perf_map"
echo "perf_map: OK ($lines lines)"
