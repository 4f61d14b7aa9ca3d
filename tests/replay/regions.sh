#!/usr/bin/env bash
# Usage: regions.sh LOGGER REPLAYER PINBALL_TOOL PROGRAM
# Regions in the middle of a run: -skip/-length and address alarms replay alone; an event
# that arrives while the logger is already in a region is ignored and logged as such.
set -uo pipefail
logger=$1 replayer=$2 pinball=$3 app=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

replay_ok() { # PINBALL: the verdict, and the instruction count it reports
	local out
	out=$("$replayer" -replay:echo 0 "$1" 2>&1)
	grep -q '^replay: OK ' <<<"$out" || fail "replay of $1: $out"
	awk '/^replay: OK/ { print $3 }' <<<"$out"
}

"$logger" -log:basename "$work/skip" -controller_log "$work/skip.log" -skip 100000 -length 50000 \
	-- "$app" 100000 >/dev/null || fail "recording -skip/-length"
n=$(replay_ok "$work/skip.0")
read -r start stop < <(awk '/^fired/ { sub("icount=", "", $4); printf "%s ", $4 }' "$work/skip.log")
# Each event fires at the start of a block (icount: at the block that would cross the count;
# a REP string instruction can run far past it) and the region flips at that block's end: the
# region holds the instructions between the events, within a block at each end.
[ "$start" -le 100000 ] && [ $((stop - start)) -ge 50000 ] || fail "events at $start and $stop"
[ $((n - (stop - start))) -ge -64 ] && [ $((n - (stop - start))) -le 64 ] ||
	fail "-skip/-length region holds $n instructions, events $start..$stop"
echo "ok   -skip 100000 -length 50000: events at $start and $stop, replay OK, $n instructions"

"$logger" -log:basename "$work/addr" -control start:address:count_primes,stop:address:count_primes \
	-- "$app" 100000 >/dev/null || fail "recording the address region"
n=$(replay_ok "$work/addr.0")
echo "ok   address region (first to second call of count_primes): replay OK, $n instructions"

"$logger" -log:basename "$work/two" -controller_log "$work/log" \
	-control start:address:count_primes -control start:ssc:11223344 -- "$app" 1000 >/dev/null ||
	fail "recording with two starts"
grep -q '^fired start tid=0 .*alarm="start:address:count_primes"' "$work/log" || fail "no start fired"
grep -q '^ignored start tid=0 .*alarm="start:ssc:11223344"' "$work/log" ||
	fail "the second start was not logged as ignored: $(cat "$work/log")"
[ "$(ls "$work"/two.*.meta | wc -l)" -eq 1 ] || fail "expected exactly one pinball"
replay_ok "$work/two.0" >/dev/null
echo "ok   a start inside a region is ignored and logged: $(grep ignored "$work/log")"
