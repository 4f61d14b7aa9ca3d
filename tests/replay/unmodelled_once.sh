#!/usr/bin/env bash
# Usage: unmodelled_once.sh LOGGER REPLAYER UNMODELLED_SYSCALLS_APP
# A syscall whose memory effects are not modelled is said once per syscall, however often
# the app calls it: one warning each for ioctl and semctl from the logger, one each from
# the replayer, whose verdict is OK.
set -uo pipefail
logger=$1 replayer=$2 app=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# COUNT FILE PREFIX: the warnings of FILE from PREFIX, by syscall, must be one each.
once_each() {
	local syscall n
	for syscall in ioctl semctl; do
		n=$(grep -c "^$2: warning: syscall $syscall .*not modelled" "$1")
		if [ "$n" -ne 1 ]; then
			echo "FAIL: $2 warned $n times about $syscall:"
			cat "$1"
			fail=1
		fi
	done
}

"$logger" -log:basename "$work/pb/u" -- "$app" >"$work/rec.out" 2>"$work/rec.err" ||
	{ echo "FAIL: the recording: $(cat "$work/rec.err")"; exit 1; }
[ "$(cat "$work/rec.out")" = "6 of 6 calls failed" ] || { echo "FAIL: printed $(cat "$work/rec.out")"; fail=1; }
once_each "$work/rec.err" logger
"$replayer" "$work/pb/u.0" >"$work/rep.out" 2>"$work/rep.err"
grep -q '^replay: OK ' "$work/rep.err" || { echo "FAIL: the replay: $(cat "$work/rep.err")"; fail=1; }
cmp -s "$work/rec.out" "$work/rep.out" || { echo "FAIL: the replay echoed $(cat "$work/rep.out")"; fail=1; }
once_each "$work/rep.err" replayer
[ $fail -eq 0 ] && echo "one warning per unmodelled syscall, recorded and replayed"
exit $fail
