#!/usr/bin/env bash
# Usage: record_replay.sh LOGGER REPLAYER [--runs N] [--any-output] [--stdin FILE]
#                         [--knob K]... -- PROGRAM [ARGS...]
# Records the program into a pinball, replays it, and passes when the recorded run's
# stdout and exit status are the native run's (with --any-output, only the exit status: a
# program whose output varies from run to run, such as a race), the replay says OK, and
# what it echoed on stdout is byte-identical to what the recorded run printed. A program
# that execs another (a #! wrapper such as gunzip) leaves a pinball per image, run.0,
# run.1, ...: each replays OK, and their echoes, in order, are the recorded stdout. With
# --runs N all of it N times (a multithreaded program takes another schedule each time).
set -uo pipefail
logger=$1 replayer=$2
shift 2
runs=1 any_output=0
while [ "${1:-}" = "--runs" ] || [ "${1:-}" = "--any-output" ]; do
	if [ "$1" = "--runs" ]; then runs=$2; shift; else any_output=1; fi
	shift
done
source "$(dirname "$0")/../support/run_args.sh"
parse_run_args "$@"
set -- "${program[@]}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for run in $(seq 1 "$runs"); do
rm -rf "$work/pb"
(cd "$work" && "$@" <"$stdin" >"$work/native.out" 2>/dev/null)
native=$?
(cd "$work" && "$logger" -log:basename "$work/pb/run" "${knobs[@]}" -- "$@" <"$stdin" >"$work/rec.out" 2>"$work/rec.err")
status=$?
if [ $any_output -eq 1 ]; then
	cp "$work/rec.out" "$work/native.out"
fi
if [ $status -ne $native ] || ! cmp -s "$work/native.out" "$work/rec.out"; then
	echo "the recorded run differs from the native one (exit $status, native $native)"
	diff <(head -c 3000 "$work/native.out") <(head -c 3000 "$work/rec.out") | head -10
	echo "the logger's stderr:"
	head -20 "$work/rec.err"
	exit 1
fi
if [ ! -f "$work/pb/run.0.meta" ]; then
	echo "no pinball was written (logger exit status $status):"
	head -20 "$work/rec.err"
	exit 1
fi
: >"$work/rep.out"
image=0
while [ -f "$work/pb/run.$image.meta" ]; do
	(cd "$work" && "$replayer" "$work/pb/run.$image" >>"$work/rep.out" 2>"$work/rep.err")
	rstatus=$?
	verdict=$(grep '^replay: ' "$work/rep.err")
	if [ $rstatus -ne 0 ] || ! grep -q '^replay: OK ' <<<"$verdict"; then
		echo "replay of run.$image failed (exit $rstatus): $verdict"
		head -20 "$work/rep.err"
		exit 1
	fi
	image=$((image + 1))
done
if ! cmp -s "$work/rec.out" "$work/rep.out"; then
	echo "the replay's stdout differs from the recording's:"
	diff <(head -c 3000 "$work/rec.out") <(head -c 3000 "$work/rep.out") | head -20
	exit 1
fi
echo "run $run: $verdict; $(wc -c <"$work/rec.out") bytes of stdout identical; pinball $(du -sh "$work/pb" | cut -f1)"
done
