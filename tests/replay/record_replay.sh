#!/usr/bin/env bash
# Usage: record_replay.sh LOGGER REPLAYER [--stdin FILE] [--knob K]... -- PROGRAM [ARGS...]
# Records the whole program into a pinball, replays it, and passes when the recorded run's
# stdout and exit status are the native run's, the replay says OK, and what it echoed on
# stdout is byte-identical to what the recorded run printed.
set -uo pipefail
logger=$1 replayer=$2
shift 2
source "$(dirname "$0")/../support/run_args.sh"
parse_run_args "$@"
set -- "${program[@]}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && "$@" <"$stdin" >"$work/native.out" 2>/dev/null)
native=$?
(cd "$work" && "$logger" -log:basename "$work/pb/run" "${knobs[@]}" -- "$@" <"$stdin" >"$work/rec.out" 2>"$work/rec.err")
status=$?
if [ $status -ne $native ] || ! cmp -s "$work/native.out" "$work/rec.out"; then
	echo "the recorded run differs from the native one (exit $status, native $native)"
	diff <(head -c 3000 "$work/native.out") <(head -c 3000 "$work/rec.out") | head -10
	exit 1
fi
if [ ! -f "$work/pb/run.0.meta" ]; then
	echo "no pinball was written (logger exit status $status):"
	head -20 "$work/rec.err"
	exit 1
fi
(cd "$work" && "$replayer" "$work/pb/run.0" >"$work/rep.out" 2>"$work/rep.err")
rstatus=$?
verdict=$(grep '^replay: ' "$work/rep.err")
if [ $rstatus -ne 0 ] || ! grep -q '^replay: OK ' <<<"$verdict"; then
	echo "replay failed (exit $rstatus): $verdict"
	head -20 "$work/rep.err"
	exit 1
fi
if ! cmp -s "$work/rec.out" "$work/rep.out"; then
	echo "the replay's stdout differs from the recording's:"
	diff <(head -c 3000 "$work/rec.out") <(head -c 3000 "$work/rep.out") | head -20
	exit 1
fi
echo "$verdict; $(wc -c <"$work/rec.out") bytes of stdout identical; pinball $(du -sh "$work/pb" | cut -f1)"
