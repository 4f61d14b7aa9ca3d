#!/usr/bin/env bash
# Usage: compare_native.sh LOGGER [--stdin FILE] [--knob K]... -- PROGRAM [ARGS...]
# Runs PROGRAM natively and under `LOGGER -log 0 -jit:check_native_exec` (every app
# instruction must run from the code cache) in the same scratch directory, and passes when
# stdout and the exit status are identical. A native exit status of 77 means the test does
# not apply to this machine: it is reported as skipped (CTest SKIP_RETURN_CODE 77).
set -uo pipefail
logger=$1
shift
source "$(dirname "$0")/../support/run_args.sh"
parse_run_args "$@"
set -- "${program[@]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && "$@" <"$stdin" >"$work/native.out" 2>"$work/native.err")
native=$?
if [ "$native" -eq 126 ] || [ "$native" -eq 127 ]; then
	echo "the program did not run natively (exit $native): $*"
	cat "$work/native.err"
	exit 1
fi
if [ "$native" -eq 77 ]; then
	cat "$work/native.out"
	exit 77
fi
(cd "$work" && "$logger" -log 0 -jit:check_native_exec "${knobs[@]}" -- "$@" <"$stdin" \
	>"$work/jit.out" 2>"$work/jit.err")
jit=$?

fail=0
if [ "$native" -ne "$jit" ]; then
	echo "exit status differs: native $native, under the logger $jit"
	fail=1
fi
if ! cmp -s "$work/native.out" "$work/jit.out"; then
	echo "stdout differs (native vs logger):"
	diff <(head -c 4000 "$work/native.out") <(head -c 4000 "$work/jit.out") | head -20
	fail=1
fi
if [ "$fail" -ne 0 ]; then
	echo "--- logger stderr:"
	head -20 "$work/jit.err"
	exit 1
fi
echo "identical: $(wc -c <"$work/native.out") bytes of stdout, exit status $native"
