#!/usr/bin/env bash
# Usage: bad_input.sh LOGGER REPLAYER PROGRAM
# Bad input to the replayer: one line naming the problem, exit 2, never a crash.
set -uo pipefail
logger=$1 replayer=$2 app=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { # NAME REGEX ARGS...
	local name=$1 regex=$2 out status
	shift 2
	out=$("$replayer" "$@" 2>&1)
	status=$?
	if [ $status -ne 2 ] || [ "$(wc -l <<<"$out")" -ne 1 ] || ! grep -Eq -- "$regex" <<<"$out"; then
		echo "FAIL $name: exit $status: $out"
		fail=1
	else
		echo "ok   $name: $out"
	fi
}
check missing "^replayer: error: .*nothing\.meta.*No such file" "$work/nothing"
"$logger" -log:basename "$work/pb/x" -- "$app" 1000 >/dev/null || exit 1
cp "$work/pb/x.0.pages" "$work/pages.orig"
head -c 100 "$work/pages.orig" >"$work/pb/x.0.pages"
check truncated "^replayer: error: .*x\.0\.pages" "$work/pb/x.0"
cp "$work/pages.orig" "$work/pb/x.0.pages"
# Flip every bit of the byte at offset 200 (writing a constant could leave it unchanged).
byte=$(od -An -tu1 -j200 -N1 "$work/pb/x.0.events.0" | tr -d ' ')
printf "\\$(printf '%03o' $((byte ^ 255)))" | dd of="$work/pb/x.0.events.0" bs=1 seek=200 conv=notrunc status=none
check corrupt "^replayer: error: .*x\.0\.events\.0" "$work/pb/x.0"
check usage "^replayer: error: no pinball given"
check unknown_knob "^replayer: error: unknown knob '-bogus'" -bogus "$work/pb/x.0"
check incomplete_knob "^replayer: error: knob '-oicount' needs a value" "$work/pb/x.0" -oicount
exit $fail
