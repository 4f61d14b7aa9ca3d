#!/usr/bin/env bash
# Usage: knob_values.sh LOGGER REPLAYER
# A knob's value is never taken for the program (nor the program for a value): bad values
# are one line naming the knob and exit 2, on the logger and the replayer alike; the valid
# forms (0/1/true/false/yes/no/on/off, a bool alone before another knob or `--`) keep
# working. A boolean knob followed by any other word is an error, with or without a `--`
# later: the program (the pinball) goes after `--`.
set -uo pipefail
logger=$1 replayer=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0

expect() { # STATUS EXPECTED-LINE COMMAND...: that status and exactly that line
	local want_status=$1 want=$2 out status
	shift 2
	out=$(timeout 20 "$@" 2>&1)
	status=$?
	if [ $status -ne "$want_status" ] || [ "$out" != "$want" ]; then
		printf 'FAIL %s\n  status %s, got: %s\n  want: %s\n' "$*" "$status" "$out" "$want"
		fail=1
	else
		echo "ok   $*: $out"
	fi
}
refused() { expect 2 "$@"; } # EXPECTED-LINE COMMAND...
works() { # EXPECTED-OUTPUT COMMAND...: exit 0 and exactly that output (stdout and stderr,
	# the logger's lines naming the pinballs it wrote aside)
	local want=$1 out status
	shift
	timeout 20 "$@" >"$work/works.out" 2>&1
	status=$?
	out=$(grep -v '^logger: wrote ' "$work/works.out")
	if [ $status -ne 0 ] || [ "$out" != "$want" ]; then
		printf 'FAIL %s\n  status %s, got: %s\n  want: %s\n' "$*" "$status" "$out" "$want"
		fail=1
	else
		echo "ok   $*"
	fi
}

# The logger: boolean knobs.
refused "logger: error: knob '-log' takes 0 or 1, not '2'" "$logger" -log 2
refused "logger: error: knob '-log' takes 0 or 1, not '2'" "$logger" -log 2 -- /bin/true
refused "logger: error: knob '-log:fat' takes 0 or 1, not '7'" "$logger" -log:fat 7
after="(the program goes after --)"
refused "logger: error: knob '-log' takes 0 or 1, not 'x' $after" "$logger" -log x -- /bin/true
refused "logger: error: knob '-log' takes 0 or 1, not 'x' $after" "$logger" -log x /bin/true
refused "logger: error: knob '-log' takes 0 or 1, not 'x' $after" "$logger" -log x
refused "logger: error: knob '-follow_execv' takes 0 or 1, not 'maybe' $after" \
	"$logger" -follow_execv maybe -- /bin/true
refused "logger: error: knob '-icount' takes 0 or 1, not '00'" "$logger" -icount 00 /bin/true
refused "logger: error: knob '-icount' takes 0 or 1, not '/bin/true' $after" \
	"$logger" -log 0 -icount /bin/true
# String, numeric and controller knobs whose value is missing or is another knob.
refused "logger: error: knob '-log:basename' needs a value, not '--'" "$logger" -log:basename -- x
refused "logger: error: knob '-log:basename' needs a value" "$logger" -log:basename
refused "logger: error: knob '-oicount' needs a value, not '-mix'" "$logger" -icount -oicount -mix /bin/true
refused "logger: error: knob '-control' needs a value, not '--'" "$logger" -control -- /bin/true
refused "logger: error: knob '-controller_log' needs a value, not '--'" \
	"$logger" -controller_log -- /bin/true
refused "logger: error: knob '-jit:stress_stop_ms' takes a number from 0 to 60000, not 'x'" \
	"$logger" -jit:stress_stop_ms x -- /bin/true
refused "logger: error: knob '-jit:stress_stop_ms' takes a number from 0 to 60000, not '-1'" \
	"$logger" -jit:stress_stop_ms -1 -- /bin/true
refused "logger: error: knob '-jit:stress_stop_ms' takes a number from 0 to 60000, not '60001'" \
	"$logger" -jit:stress_stop_ms 60001 -- /bin/true
refused "logger: error: knob '-jit:stress_stop_ms' takes a number from 0 to 60000, not '18446744073709551617'" \
	"$logger" -jit:stress_stop_ms 18446744073709551617 -- /bin/true

# The logger: what still works, and means what it says.
works "" "$logger" -log -- /bin/true
works "" "$logger" -log:basename "$work/a/x" -log -- /bin/true
[ -f "$work/a/x.0.meta" ] || { echo "FAIL: '-log --' (alone: 1) recorded no pinball"; fail=1; }
# PinPlay's users write a bare -log before its other knobs.
works "" "$logger" -log -log:basename "$work/d/x" -- /bin/true
[ -f "$work/d/x.0.meta" ] || { echo "FAIL: '-log -log:basename' recorded no pinball"; fail=1; }
works "" "$logger" -log:basename "$work/b/x" -log NO /bin/true
[ ! -e "$work/b" ] || { echo "FAIL: '-log NO' recorded"; fail=1; }
works "" "$logger" -log:basename "$work/c/x" -log yes -log:fat On -- /bin/true
[ -f "$work/c/x.0.meta" ] || { echo "FAIL: '-log yes' recorded no pinball"; fail=1; }
works "" "$logger" -log false -jit:stress_stop_ms 5 -- /bin/true
works "" "$logger" -log 0 -jit:argv0 -dash -- /bin/true
# -follow_execv off: the exec'd program runs natively, so no -icount report comes from it.
icount_reports() { "$logger" -log 0 -icount -follow_execv "$1" -- sh -c 'exec /bin/true' 2>&1 |
	grep -c '^icount total'; }
[ "$(icount_reports off)" = 0 ] && [ "$(icount_reports TRUE)" = 1 ] ||
	{ echo "FAIL: -follow_execv off/TRUE"; fail=1; }

# The replayer: the same rules.
"$logger" -log:basename "$work/pb/x" -- /bin/echo hello >/dev/null || exit 1
pb=$work/pb/x.0
refused "replayer: error: knob '-replay:echo' takes 0 or 1, not '2'" "$replayer" -replay:echo 2 "$pb"
refused "replayer: error: knob '-icount' takes 0 or 1, not 'x' (the pinball goes after --)" \
	"$replayer" -icount x -- "$pb"
refused "replayer: error: knob '-replay:echo' takes 0 or 1, not '$pb' (the pinball goes after --)" \
	"$replayer" -replay:echo "$pb"
refused "replayer: error: knob '-oicount' needs a value, not '--'" "$replayer" -oicount -- "$pb"
refused "replayer: error: knob '-oicount' needs a value" "$replayer" "$pb" -oicount
refused "replayer: error: knob '-control' needs a value, not '-icount'" \
	"$replayer" -control -icount "$pb"
ok_line="replay: OK $("$replayer" -replay:echo 0 "$pb" 2>&1 | sed -n 's/^replay: OK //p')"
works "$ok_line" "$replayer" -replay:echo off "$pb"
works "hello
$ok_line" "$replayer" -replay:echo -- "$pb"
works "hello
$ok_line" "$replayer" -replay:echo Yes "$pb"
exit $fail
