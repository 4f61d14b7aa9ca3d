#!/usr/bin/env bash
# Usage: processes.sh LOGGER REPLAYER PINBALL_TOOL THREADS_APP
# Every process and every exec gets a pinball of its own, each one is finished (or removed),
# and the logger says which it wrote, and which forked children it did not record; what
# killed loggers leave behind is named by verify, removed by `pinball clean` and by the next
# run; an older pinball's extra parts go.
set -uo pipefail
logger=$1 replayer=$2 pinball=$3 threads_app=$4
source "$(dirname "$0")/../support/scratch.sh"

# Replays pinball $1 and checks that it says OK and echoes exactly $2.
replays_as() {
	local out
	out=$("$replayer" "$1" 2>"$work/rep.err") || fail "replay of $1: $(tail -3 "$work/rep.err")"
	grep -q '^replay: OK ' "$work/rep.err" || fail "replay of $1: $(cat "$work/rep.err")"
	[ "$out" = "$2" ] || fail "replay of $1 echoed '$out', expected '$2'"
}

no_temporary_files() {
	local left
	left=$(find "$work" -name '*.tmp-*')
	[ -z "$left" ] || fail "temporary files left: $left"
}

# 1. A shell that forks two children which exec, then execs itself: four pinballs.
"$logger" -log:basename pb/sh -- /bin/bash --norc -c '/bin/echo a; /bin/echo b; exec /bin/echo c' \
	>out.txt 2>err.txt || fail "logger exit status $?: $(cat err.txt)"
[ "$(cat out.txt)" = "$(printf 'a\nb\nc')" ] || fail "the recorded run printed $(cat out.txt)"
children=$(cd pb && ls sh.pid*.0.meta 2>/dev/null | wc -l)
[ "$children" -eq 2 ] || fail "expected 2 pinballs of forked processes, found $children: $(ls pb)"
[ -f pb/sh.0.meta ] && [ -f pb/sh.1.meta ] || fail "the shell's two images: $(ls pb)"
[ "$(grep -c '^logger: wrote pb/sh' err.txt)" -eq 4 ] || fail "the logger named: $(cat err.txt)"
! grep -q 'is not recorded' err.txt || fail "children that exec'd said unrecorded: $(cat err.txt)"
grep -q '^logger: wrote pb/sh.0: .* to exec execve$' err.txt || fail "$(cat err.txt)"
"$pinball" info pb/sh.0 | grep -q 'region stop   exec execve' || fail "pinball info pb/sh.0"
replays_as pb/sh.0 ""
replays_as pb/sh.1 c
for meta in pb/sh.pid*.0.meta; do
	out=$("$replayer" "${meta%.meta}" 2>rep.err)
	grep -q '^replay: OK ' rep.err || fail "replay of $meta: $(cat rep.err)"
	printf '%s\n' "$out" >>children.out
done
[ "$(sort children.out | tr '\n' ' ')" = "a b " ] || fail "children echoed $(cat children.out)"
no_temporary_files
echo "ok: a pinball per process and per exec, each replays"

# 2. An exec not followed (-follow_execv 0) ends the region: the pinball is there.
"$logger" -follow_execv 0 -log:basename pb/nf -- /bin/bash --norc -c 'exec /bin/echo x' \
	>out.txt 2>err.txt || fail "logger -follow_execv 0: $(cat err.txt)"
[ "$(cat out.txt)" = x ] || fail "printed $(cat out.txt)"
grep -q '^logger: wrote pb/nf.0: ' err.txt || fail "no word of pb/nf.0: $(cat err.txt)"
replays_as pb/nf.0 ""
echo "ok: -follow_execv 0"

# 3. -q: not a word.
"$logger" -q -log:basename pb/q -- /bin/true 2>err.txt || fail "logger -q"
[ ! -s err.txt ] || fail "-q printed $(cat err.txt)"
[ -f pb/q.0.meta ] || fail "-q wrote no pinball"
echo "ok: -q"

# 4. Killed by a signal while it sleeps (SIGTERM): the region ends inside the syscall.
"$logger" -log:basename pb/term -- sleep 20 2>err.txt &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
status=$?
[ $status -eq 143 ] || fail "SIGTERM: exit status $status"
grep -q '^logger: wrote pb/term.0: .* to signal SIGTERM$' err.txt || fail "SIGTERM: $(cat err.txt)"
replays_as pb/term.0 ""
no_temporary_files
echo "ok: SIGTERM"

# 5. Killed by SIGKILL: verify names the leftovers, clean removes them.
"$logger" -log:basename pb/kill -- sleep 20 2>/dev/null &
pid=$!
for _ in $(seq 50); do
	[ -n "$(ls pb | grep '^kill\..*tmp-')" ] && break
	sleep 0.1
done
"$pinball" verify pb/kill.0 2>verify.err && fail "verify accepted a pinball still written"
grep -q "unfinished pinball: process $pid is still writing it" verify.err ||
	fail "verify while writing: $(cat verify.err)"
kill -KILL $pid
wait $pid 2>/dev/null
"$pinball" verify pb/kill.0 2>verify.err && fail "verify accepted leftovers"
grep -q "pb/kill.0: unfinished pinball (0 parts, [1-9][0-9]* temporary files" verify.err ||
	fail "verify of leftovers: $(cat verify.err)"
"$replayer" pb/kill.0 2>rep.err && fail "the replayer accepted leftovers"
grep -q "unfinished pinball" rep.err || fail "replayer on leftovers: $(cat rep.err)"
"$pinball" clean pb/kill.0 >clean.out || fail "clean: $(cat clean.out)"
grep -q '^pb/kill.0: [1-9][0-9]* files removed$' clean.out || fail "clean said $(cat clean.out)"
[ -z "$(ls pb | grep '^kill\.')" ] || fail "clean left $(ls pb | grep '^kill\.')"
"$pinball" clean pb/kill.0 2>clean.err && fail "clean of nothing succeeded"
grep -q 'no such pinball' clean.err || fail "clean of nothing: $(cat clean.err)"
echo "ok: SIGKILL leftovers, verify, clean"

# 6. The next run of the same name removes what a killed one left: parts renamed without
# P.meta (killed while renaming) and temporary files.
"$logger" -q -log:basename pb/next -- /bin/true || fail "logger"
rm pb/next.0.meta
touch pb/next.0.pages.tmp-999999999-deadbeef
"$pinball" verify pb/next.0 2>verify.err && fail "verify accepted parts without P.meta"
grep -q 'unfinished pinball' verify.err || fail "$(cat verify.err)"
"$logger" -q -log:basename pb/next -- /bin/echo again >/dev/null || fail "logger over leftovers"
"$pinball" verify pb/next.0 >/dev/null || fail "verify after the next run"
no_temporary_files
echo "ok: the next run cleans"

# 7. A pinball over an older one with more threads: the older events parts go.
"$logger" -q -log:basename pb/over -- "$threads_app" >/dev/null || fail "logger threads"
ls pb/over.0.events.1 >/dev/null 2>&1 || fail "no events part of thread 1: $(ls pb)"
"$logger" -q -log:basename pb/over -- /bin/true || fail "logger over"
[ -z "$(ls pb | grep '^over\.0\.events\.[1-9]')" ] || fail "older parts stayed: $(ls pb)"
"$pinball" clean pb/over.0 >clean.out || fail "clean of a finished pinball"
grep -q '^pb/over.0: 0 files removed (the finished pinball is kept)$' clean.out ||
	fail "clean said $(cat clean.out)"
replays_as pb/over.0 ""
echo "ok: older parts removed"

# 8. A child forked in a region that never execs is not recorded, and says so when it ends
# (a subshell); one forked outside any region does not, nor any under -q.
subshell='(echo "$BASHPID"); x=$(echo hi); echo "$x"'
"$logger" -log:basename pb/fork -- /bin/bash --norc -c "$subshell" >out.txt 2>err.txt ||
	fail "logger of subshells: $(cat err.txt)"
pid=$(head -1 out.txt)
grep -qx "logger: process $pid (forked in region 0) is not recorded: a forked child is recorded from its exec on" err.txt ||
	fail "no word of subshell $pid: $(cat err.txt)"
[ "$(grep -c 'is not recorded' err.txt)" -eq 2 ] || fail "two children, told: $(cat err.txt)"
replays_as pb/fork.0 hi # the subshell wrote, unrecorded; the parent echoes what it read
for knobs in "-q" "-log 0" "-control start:icount:1000000000000"; do
	# shellcheck disable=SC2086 # the knobs are words
	"$logger" $knobs -log:basename pb/nofork -- /bin/bash --norc -c "$subshell" >/dev/null 2>err.txt ||
		fail "logger $knobs: $(cat err.txt)"
	! grep -q 'is not recorded' err.txt || fail "logger $knobs told: $(cat err.txt)"
done
echo "ok: forked children not recorded are named"
