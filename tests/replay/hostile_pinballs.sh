#!/usr/bin/env bash
# Usage: hostile_pinballs.sh LOGGER REPLAYER MUTATE PROGRAM
# Pinballs with valid checksums and one crafted defect each (mutate_pinball NAME): the
# replayer refuses them with a one-line error naming the defect (exit 2), or the replay ends
# in a DIVERGED verdict (exit 1); never a crash or a hang, and an OK only for a start state
# a real region may have (flag-df).
set -uo pipefail
logger=$1 replayer=$2 mutate=$3 app=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$logger" -log:basename "$work/good" -- "$app" >/dev/null 2>&1 || { echo "recording failed"; exit 1; }
fail=0
expect() { # NAME STATUS REGEX
	rm -f "$work"/bad.*
	"$mutate" "$work/good.0" "$work/bad.0" "$1" >/dev/null || { echo "$1: cannot mutate"; fail=1; return; }
	out=$(timeout -s KILL 20 "$replayer" -replay:echo 0 "$work/bad.0" 2>&1 | tail -1)
	status=${PIPESTATUS[0]}
	if [ "$status" -ne "$2" ] || ! grep -Eq "$3" <<<"$out"; then
		echo "$1: expected exit $2 and /$3/, got exit $status: $out"
		fail=1
	fi
}
expect rip0 2 "^replayer: error: the pinball's start rip 0x0 is not in recorded executable memory"
expect flag-tf 2 "^replayer: error: the pinball's start rflags 0x[0-9a-f]+ has flags a replay cannot reproduce"
# The direction flag set at the start, as in a region that starts inside a backward copy: it
# is replayed as given (string instructions run backwards: the debug trace is not the good
# pinball's), and this region still ends in its recorded state.
expect flag-df 0 "^replay: OK [0-9]+ instructions"
"$replayer" -replay:echo 0 -debugtrace -odebugtrace "$work/good.trace" "$work/good.0" 2>/dev/null
"$replayer" -replay:echo 0 -debugtrace -odebugtrace "$work/df.trace" "$work/bad.0" 2>/dev/null
if cmp -s "$work/good.trace" "$work/df.trace"; then
	echo "flag-df: the direction flag made no difference to the replay"
	fail=1
fi
expect flag-ac 1 "^replay: DIVERGED at tid 0 icount [0-9]+: the app died of signal 7"
expect write-outside 1 "^replay: DIVERGED .*: the recording has the kernel write [0-9]+ bytes at 0x10000, where the app has no writable memory"
expect page-outside 2 "^replayer: error: .*page 0x10000 is outside the memory map"
expect page-twice 2 "^replayer: error: .*page 0x[0-9a-f]+ is recorded twice"
expect map-overlap 2 "^replayer: error: .*memory map entries overlap"
expect end-icount 2 "^replayer: error: .*the schedule gives thread 0 [0-9]+ instructions, its end state"
expect slice 2 "^replayer: error: .*the schedule gives thread 0"
expect signo 2 "^replayer: error: .*a signal event of signal 99"
expect dest-reg 2 "^replayer: error: .*an instruction event of kind [0-9]+, register 17"
expect xsave-size 2 "^replayer: error: .*an impossible xsave size"
[ $fail -eq 0 ] && echo "every crafted pinball refused or diverged as expected"
exit $fail
