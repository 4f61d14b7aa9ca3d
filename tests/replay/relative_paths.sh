#!/usr/bin/env bash
# Usage: relative_paths.sh LOGGER REPLAYER
# Relative paths in knobs name files from where the run started, whatever directory the app
# and the processes it execs are in when the files are written: a shell that changes its
# directory, runs a child there and execs another program leaves every pinball under the
# -log:basename it was given (the default one too), each replays, and the logger names them
# as given; a report file (-oicount) of an exec'd process lands where it was asked for.
set -uo pipefail
logger=$1 replayer=$2
source "$(dirname "$0")/../support/scratch.sh"
mkdir elsewhere

replays() {
	"$replayer" -replay:echo 0 "$1" >/dev/null 2>rep.err || fail "replay of $1: $(cat rep.err)"
	grep -q '^replay: OK ' rep.err || fail "replay of $1: $(cat rep.err)"
}

# 1. -log:basename pb/sh: the shell's two images, its child's pinball.
"$logger" -log:basename pb/sh -- /bin/bash --norc -c \
	"cd $work/elsewhere && /bin/true && exec /bin/echo c" >out.txt 2>err.txt ||
	fail "logger exit status $?: $(cat err.txt)"
[ "$(cat out.txt)" = c ] || fail "the recorded run printed '$(cat out.txt)'"
[ -f pb/sh.0.meta ] && [ -f pb/sh.1.meta ] || fail "the shell's images: $(ls -R)"
children=$(cd pb && ls sh.pid*.0.meta 2>/dev/null | wc -l)
[ "$children" -eq 1 ] || fail "expected the child's pinball in pb/: $(ls -R)"
[ -z "$(ls elsewhere)" ] || fail "files in the app's directory: $(ls -R elsewhere)"
left=$(find "$work" -name '*.tmp-*')
[ -z "$left" ] || fail "temporary files left: $left"
[ "$(grep -c '^logger: wrote pb/sh' err.txt)" -eq 3 ] || fail "the logger named: $(cat err.txt)"
for meta in pb/sh.0.meta pb/sh.1.meta pb/sh.pid*.0.meta; do
	replays "${meta%.meta}"
done

# 2. The default basename, pinball/log, from where the run started (the shell's last
# command is exec'd: its second image).
"$logger" -- /bin/bash --norc -c "cd $work/elsewhere && /bin/true; /bin/true" >/dev/null \
	2>err.txt || fail "logger exit status $?: $(cat err.txt)"
[ -f pinball/log.0.meta ] && [ -f pinball/log.1.meta ] || fail "the shell's images: $(ls -R)"
[ "$(cd pinball && ls log.pid*.0.meta 2>/dev/null | wc -l)" -eq 1 ] ||
	fail "the child's pinball: $(ls -R)"
[ -z "$(ls elsewhere)" ] || fail "files in the app's directory: $(ls -R elsewhere)"
replays pinball/log.0
replays pinball/log.1

# 3. A report file of the image that a shell execs from another directory.
"$logger" -log 0 -icount -oicount icount.txt -- /bin/bash --norc -c \
	"cd $work/elsewhere && exec /bin/true" 2>err.txt || fail "logger: $(cat err.txt)"
grep -q '^icount total [1-9]' icount.txt 2>/dev/null || fail "no report in icount.txt: $(ls -R)"
[ -z "$(ls elsewhere)" ] || fail "files in the app's directory: $(ls -R elsewhere)"
echo PASS
