#!/usr/bin/env bash
# Usage: relog.sh LOGGER REPLAYER APP THREADS_APP
# Relogging (replayer -log -control ... -log:basename B PINBALL):
#  - a sub-region of a pinball becomes a pinball that replays OK on its own, with the
#    instructions -icount counts in that region of the original, and the same instructions:
#    its ChampSim trace is the original's records from the region's first instruction on;
#  - a region of the relogged pinball relogs again (a relogged relogged pinball replays);
#  - a region left open runs to the end of the pinball and replays;
#  - a multithreaded pinball, a bad -log:regions:in file and -log:regions:in without -log
#    are refused with one line, exit 2.
set -uo pipefail
logger=$1 replayer=$2 app=$3 threads=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
fired() { sed -nE "s/^fired $1 tid=0 icount=([0-9]+) .*/\\1/p" "$2"; }
count() { sed -nE 's/^icount total ([0-9]+)$/\1/p' "$1"; }

"$logger" -log:basename pb/whole -- "$app" 20000 >/dev/null 2>&1 || bad "recording"
region=start:icount:20000,stop:icount:60000
"$replayer" -replay:echo 0 -icount -oicount want.icount -control $region -controller_log c1.log \
	-trace champsim -o whole.trace pb/whole.0 2>/dev/null || bad "replaying the original"
"$replayer" -replay:echo 0 -log -log:basename rl/sub -control $region pb/whole.0 2>relog.err ||
	bad "relogging: $(cat relog.err)"
out=$("$replayer" -replay:echo 0 -icount -oicount sub.icount -trace champsim -o sub.trace \
	rl/sub.0 2>&1)
grep -q '^replay: OK' <<<"$out" || bad "the relogged pinball: $out"
want=$(count want.icount) got=$(count sub.icount)
[ -n "$want" ] && [ "$want" = "$got" ] || bad "the relogged pinball has $got instructions, the region $want"
start=$(fired start c1.log)
if ! cmp -s sub.trace <(tail -c +$((start * 64 + 1)) whole.trace | head -c $((want * 64))); then
	bad "the relogged pinball's trace is not the original's from icount $start"
fi

# Relogging the relogged pinball.
"$replayer" -replay:echo 0 -icount -oicount want2.icount -control start:icount:5000,stop:icount:9000 \
	rl/sub.0 2>/dev/null || bad "replaying the relogged pinball with -control"
"$replayer" -replay:echo 0 -log -log:basename rl2/subsub -control start:icount:5000,stop:icount:9000 \
	rl/sub.0 2>/dev/null || bad "relogging the relogged pinball"
out=$("$replayer" -replay:echo 0 -icount -oicount sub2.icount rl2/subsub.0 2>&1)
grep -q '^replay: OK' <<<"$out" || bad "the twice relogged pinball: $out"
[ "$(count want2.icount)" = "$(count sub2.icount)" ] || bad "twice relogged: $(count sub2.icount) instructions, want $(count want2.icount)"

# A region that runs to the end of the pinball.
"$replayer" -replay:echo 0 -log -log:basename rl3/tail -control start:icount:100000 \
	pb/whole.0 2>/dev/null || bad "relogging a region without a stop"
out=$("$replayer" -replay:echo 0 rl3/tail.0 2>&1)
grep -q '^replay: OK' <<<"$out" || bad "the region to the end: $out"

"$logger" -log:basename pb/mt -- "$threads" >/dev/null 2>&1 || bad "recording threads"
out=$("$replayer" -replay:echo 0 -log -log:basename rl4/x -control start:icount:1000 pb/mt.0 2>&1)
status=$?
if [ $status -ne 2 ] || ! grep -q "^replayer: error: -log: relogging a multithreaded pinball" <<<"$out"; then
	bad "a multithreaded pinball: exit $status: $out"
fi
refused() { # REGEX ARGS...: one line matching, exit 2
	local regex=$1 out status
	shift
	out=$("$replayer" -replay:echo 0 "$@" 2>&1)
	status=$?
	if [ $status -ne 2 ] || [ "$(wc -l <<<"$out")" -ne 1 ] || ! grep -Eq -- "$regex" <<<"$out"; then
		bad "refusing $*: exit $status: $out"
	fi
}
printf 'region,start,length\n0,100,x\n' >bad.csv
refused "^replayer: error: -log:regions:in: bad.csv line 2: expected <region>,<start>,<length>" \
	-log -log:basename rl5/x -log:regions:in bad.csv pb/whole.0
refused "^replayer: error: -log:regions:in needs -log" -log:regions:in bad.csv pb/whole.0
refused "^replayer: error: -log:regions:in: cannot read 'none.csv'" -log -log:regions:in none.csv \
	pb/whole.0
[ $fail = 0 ] && echo "ok: $want instructions relogged from icount $start, relogged again, to the end; MT refused"
exit $fail
