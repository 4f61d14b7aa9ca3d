#!/usr/bin/env bash
# Usage: mix_matches_icount.sh LOGGER [--knob K]... -- PROGRAM [ARGS...]
# Runs PROGRAM under -mix and -icount together: every thread's mix must hold exactly the
# instructions -icount counted for it (regions included), the totals too, and the app's
# stdout and exit status must be those of a native run.
set -uo pipefail
logger=$1
shift
source "$(dirname "$0")/../support/run_args.sh"
parse_run_args "$@"
set -- "${program[@]}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && "$@" >"$work/native.out" 2>/dev/null)
native=$?
(cd "$work" && "$logger" -log 0 "${knobs[@]}" -icount -oicount "$work/icount" -mix \
	-omix "$work/mix" -- "$@" >"$work/jit.out" 2>"$work/jit.err")
status=$?
fail=0
if [ "$status" -ne "$native" ] || ! cmp -s "$work/native.out" "$work/jit.out"; then
	echo "FAIL: the app's output or status (native $native, under -mix $status) differs"
	cat "$work/jit.err"
	fail=1
fi
icount=$(awk '{ print $2, $3 }' "$work/icount")
mix=$(awk '$3 == "instructions" { print ($2 == "total" ? "total" : $2), $4 }' "$work/mix")
if [ -z "$icount" ] || [ "$icount" != "$mix" ]; then
	printf 'FAIL: -icount and -mix disagree\n-icount:\n%s\n-mix:\n%s\n' "$icount" "$mix"
	fail=1
else
	echo "ok: -mix holds what -icount counted: $(echo "$icount" | tr '\n' ' ')"
fi
exit $fail
