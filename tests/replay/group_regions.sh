#!/usr/bin/env bash
# Usage: group_regions.sh LOGGER REPLAYER PROGRAM
# Regions that end by instruction count replay with the count's countdown, whose count
# groups check once for several blocks (count_groups.h): a stop inside a group runs its
# first block alone and checks again where the next one is entered. PROGRAM is
# tests/apps/icount_group, whose loop is one such group of three blocks (entered in its
# middle, at `third`, from out-of-line code); regions of 20 to 51 instructions from the
# same start end at each of its blocks in turn, and each replays exactly.
set -uo pipefail
logger=$1 replayer=$2 app=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

declare -A lengths
for length in $(seq 20 51); do
	rec=$("$logger" -log:basename "$work/r$length" -control "start:icount:30,stop:icount:$length" \
		-- "$app" 2>&1) || fail "recording $length: exit $?: $rec"
	n=$(sed -n 's/.*: \([0-9]*\) instructions in 1 thread.*/\1/p' <<<"$rec")
	[ -n "$n" ] || fail "recording $length: $rec"
	out=$("$replayer" -replay:echo 0 "$work/r$length.0" 2>&1)
	grep -q "^replay: OK $n instructions" <<<"$out" ||
		fail "region stopping at icount:$length ($n instructions): $out"
	lengths[$n]=1
done
# (the ends fall on different blocks: as many region lengths as the loop has block ends
# in 32 instructions, about 12)
[ "${#lengths[@]}" -ge 8 ] || fail "only ${#lengths[@]} different regions: ${!lengths[*]}"
echo "ok   32 regions, ${#lengths[@]} different lengths (${!lengths[*]}), each replayed exactly"
