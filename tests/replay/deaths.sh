#!/usr/bin/env bash
# Usage: deaths.sh LOGGER REPLAYER PINBALL_TOOL DIES_BY_SIGNAL [HOW...]
# An app that dies of a signal inside a region leaves a finished pinball whose region stops
# there: the logger dies of the same signal as natively, `pinball info` names the signal,
# and the replay runs to the point of death, says OK and that the app then died, as
# recorded, echoing what the recording printed. A signal from outside that lands where the
# thread's state is not known leaves nothing behind, and the logger says so (HOW "spin").
# The ways to die are DIES_BY_SIGNAL's arguments (default: abort segv term fpe thread_segv
# spin).
set -uo pipefail
logger=$1 replayer=$2 pinball=$3 app=$4
shift 4
ways=("$@")
[ ${#ways[@]} -gt 0 ] || ways=(abort segv term fpe thread_segv spin)
source "$(dirname "$0")/../support/scratch.sh"

check_replay() { # BASENAME SIGNAL-NAME EXPECTED-STDOUT-FILE
	"$replayer" "$1" >rep.out 2>rep.err
	local status=$?
	[ $status -eq 0 ] || fail "replay of $1: exit $status: $(cat rep.err)"
	grep -q "^replay: OK .*; then the app died of $2, as recorded$" rep.err ||
		fail "replay of $1: $(cat rep.err)"
	cmp -s "$3" rep.out || fail "replay of $1 echoed $(cat rep.out)"
}

for how in "${ways[@]}"; do
	[ "$how" != spin ] || continue
	"$app" "$how" >native.out 2>/dev/null
	native=$?
	"$logger" -log:basename "pb/$how" -- "$app" "$how" >rec.out 2>rec.err
	status=$?
	[ $status -eq $native ] || fail "$how: the logger exited $status, natively $native"
	cmp -s native.out rec.out || fail "$how: the recording printed $(cat rec.out)"
	signal=$(kill -l $((native - 128)))
	grep -q "^logger: wrote pb/$how.0: .* to signal SIG$signal$" rec.err ||
		fail "$how: the logger said $(cat rec.err)"
	"$pinball" verify "pb/$how.0" >/dev/null || fail "$how: pinball verify"
	"$pinball" info "pb/$how.0" | grep -q "region stop   signal SIG$signal" ||
		fail "$how: pinball info: $("$pinball" info "pb/$how.0" | grep 'region stop')"
	check_replay "pb/$how.0" "SIG$signal" rec.out
	echo "ok: $how (SIG$signal): pinball finished, replay OK to the point of death"
done

# A signal from outside while the app computes: a finished pinball when it lands between two
# app instructions (nearly always), otherwise nothing left and a message.
[[ " ${ways[*]} " == *" spin "* ]] || exit 0
for run in 1 2 3; do
	"$logger" -log:basename "pb/spin$run" -- "$app" spin >rec.out 2>rec.err &
	pid=$!
	sleep 0.5
	kill -TERM $pid
	wait $pid
	status=$?
	[ $status -eq 143 ] || fail "spin: exit status $status"
	if [ -f "pb/spin$run.0.meta" ]; then
		check_replay "pb/spin$run.0" SIGTERM rec.out
		echo "ok: SIGTERM from outside, run $run: pinball finished, replay OK"
	else
		grep -q 'where its state is not known: pinball pb/spin.*not written' rec.err ||
			fail "spin: no pinball and $(cat rec.err)"
		[ -z "$(ls pb | grep "^spin$run\.")" ] || fail "spin: left $(ls pb)"
		echo "ok: SIGTERM from outside, run $run: state unknown, nothing left"
	fi
done
