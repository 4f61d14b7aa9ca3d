#!/usr/bin/env bash
# Usage: fork_shared.sh LOGGER REPLAYER FORK_SHARED_APP
# A recorded process that forks while it shares writable memory with the child (which is
# not recorded) is told so at once, with the mapping; its replay, where the parent reads
# what the child wrote, says DIVERGED, never OK. A fork without such memory is not warned
# about, and replays OK.
set -uo pipefail
logger=$1 replayer=$2 app=$3
source "$(dirname "$0")/../support/scratch.sh"

"$logger" -log:basename pb/shared -- "$app" shared >out.txt 2>err.txt ||
	fail "logger exit status $?: $(cat err.txt)"
[ "$(cat out.txt)" = 42 ] || fail "the recorded run printed '$(cat out.txt)'"
grep -Eq '^logger: warning: process [0-9]+ forked process [0-9]+ while they share writable memory \(anonymous at 0x[0-9a-f]+, MAP_SHARED\): what the child writes there is not recorded' err.txt ||
	fail "no warning: $(cat err.txt)"
[ "$(grep -c 'share writable memory' err.txt)" -eq 1 ] || fail "warned more than once: $(cat err.txt)"
"$replayer" pb/shared.0 >rep.out 2>rep.err
grep -q '^replay: DIVERGED' rep.err || fail "the replay of the shared fork: $(cat rep.err)"

"$logger" -log:basename pb/private -- "$app" private >out.txt 2>err.txt ||
	fail "logger exit status $?: $(cat err.txt)"
[ "$(cat out.txt)" = 0 ] || fail "the recorded run printed '$(cat out.txt)'"
! grep -q 'share writable memory' err.txt || fail "warned about a private fork: $(cat err.txt)"
"$replayer" pb/private.0 >rep.out 2>rep.err
grep -q '^replay: OK' rep.err || fail "the replay of the private fork: $(cat rep.err)"
echo PASS
