#!/usr/bin/env bash
# Usage: rseq.sh LOGGER REPLAYER MT_SCENARIOS
# Restartable sequences are refused under the JIT (the kernel would write the CPU number
# into app memory at any moment, and restart at app addresses the thread never runs
# from): glibc runs without them, sched_getcpu still answers, and a region of threads asking
# it records and replays. Skipped (77) where glibc registers no rseq natively.
set -uo pipefail
logger=$1 replayer=$2 app=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
native=$("$app" cpus) || fail "native run"
grep -q '^cpus: rseq 1, 2000 valid' <<<"$native" || { echo "SKIP: no rseq natively: $native"; exit 77; }
jit=$("$logger" -log 0 -- "$app" cpus) || fail "under the JIT"
[ "$jit" = "cpus: rseq 0, 2000 valid answers of sched_getcpu" ] || fail "under the JIT: $jit"
for run in 1 2 3; do
	rm -rf "$work/pb"
	recorded=$("$logger" -log:basename "$work/pb/c" -control start:ssc:11223344,stop:ssc:55667788 \
		-- "$app" cpus) || fail "recording"
	[ "$recorded" = "$jit" ] || fail "recorded run: $recorded"
	replayed=$("$replayer" "$work/pb/c.0" 2>"$work/err") || fail "replay: $(cat "$work/err")"
	grep -q '^replay: OK ' "$work/err" || fail "replay: $(cat "$work/err")"
	[ "$replayed" = "$recorded" ] || fail "the replay echoed '$replayed'"
done
echo "rseq refused under the JIT; $jit; recorded and replayed 3 times"
