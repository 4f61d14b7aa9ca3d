#!/usr/bin/env bash
# Usage: exit_at_start.sh LOGGER REPLAYER PINBALL_TOOL MT_SCENARIOS
# Threads exit just as another thread starts a region (a region a round, repeated): the
# kernel's exit writes (the tid word pthread_join waits on) must not be lost on a page the
# region withholds, nor land unrecorded. Every recording ends (a watchdog tells a hang),
# with one pinball a round, each naming the event that started it (not the stop event that
# followed quickly), and every pinball replays OK.
set -uo pipefail
logger=$1 replayer=$2 pinball=$3 app=$4
rounds=25
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for run in $(seq 1 8); do
	rm -rf "$work/pb"
	timeout 60 "$logger" -log:basename "$work/pb/b" \
		-control start:ssc:11223344,stop:ssc:55667788,repeat -- "$app" exit_at_start \
		>"$work/out" 2>"$work/err"
	status=$?
	[ $status -ne 124 ] || fail "run $run: the recording hung: $(tail -3 "$work/err")"
	[ $status -eq 0 ] || fail "run $run: the recording failed (exit $status): $(tail -3 "$work/err")"
	grep -q "^exit at start: $rounds rounds" "$work/out" || fail "run $run: $(cat "$work/out")"
	n=$(ls "$work"/pb/*.meta | wc -l)
	[ "$n" -eq $rounds ] || fail "run $run: $n pinballs, expected $rounds"
	for meta in "$work"/pb/*.meta; do
		"$pinball" info "${meta%.meta}" | grep -q '^  region start  control start:ssc:11223344 ' ||
			fail "run $run: ${meta##*/}: $("$pinball" info "${meta%.meta}" | grep 'region start')"
		verdict=$("$replayer" -replay:echo 0 "${meta%.meta}" 2>&1 | tail -1)
		grep -q '^replay: OK ' <<<"$verdict" || fail "run $run: ${meta##*/}: $verdict"
	done
done
echo "8 runs of $rounds regions started while threads exit: every one ended and replayed OK"
