#!/usr/bin/env bash
# Usage: fuzz_replayer.sh LOGGER REPLAYER MUTATE SEEDS BUDGET PROGRAM...
# Records PROGRAM, then replays up to SEEDS mutants of its pinball (mutate_pinball:
# checksums and counts kept valid, values changed, records dropped or duplicated). Each
# replay must end in a verdict (`replay: OK` or `replay: DIVERGED`, exit 0 or 1) or a
# one-line error (`replayer: error:`, exit 2) within 20 s: never a crash, a hang or
# silence. A failing seed is printed with the command that reproduces it. No mutant starts
# after BUDGET seconds, so that a loaded machine runs fewer of them rather than exceeding
# the test's timeout (the mutants take at most BUDGET + 20 s).
set -uo pipefail
logger=$1 replayer=$2 mutate=$3 seeds=$4 budget=$5
shift 5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$logger" -log:basename "$work/good" -- "$@" >/dev/null 2>&1 || { echo "recording failed"; exit 1; }
fail=0
declare -A outcomes
SECONDS=0
ran=0
for seed in $(seq 1 "$seeds"); do
	[ $SECONDS -lt "$budget" ] || break
	ran=$seed
	rm -f "$work"/bad.*
	"$mutate" "$work/good.0" "$work/bad.0" "$seed" >"$work/what" 2>&1 || { outcomes[unwritable]=$((${outcomes[unwritable]:-0} + 1)); continue; }
	timeout -s KILL 20 "$replayer" -replay:echo 0 "$work/bad.0" >/dev/null 2>"$work/err"
	status=$?
	last=$(grep -E '^(replay: (OK|DIVERGED)|replayer: error:)' "$work/err" | tail -1)
	case "$status:$last" in
	0:"replay: OK "*) outcomes[ok]=$((${outcomes[ok]:-0} + 1)) ;;
	1:"replay: DIVERGED "*) outcomes[diverged]=$((${outcomes[diverged]:-0} + 1)) ;;
	2:"replayer: error: "*) outcomes[refused]=$((${outcomes[refused]:-0} + 1)) ;;
	*)
		echo "seed $seed: exit $status; $(tr '\n' ';' <"$work/what")"
		head -c 600 "$work/err"
		echo "  reproduce: $mutate PINBALL BAD.0 $seed && $replayer BAD.0"
		fail=1
		;;
	esac
done
for k in "${!outcomes[@]}"; do printf '%s %s; ' "$k" "${outcomes[$k]}"; done
if [ "$ran" -lt "$seeds" ]; then
	echo "($ran of $seeds mutants: the time budget of $budget s ran out after ${SECONDS} s)"
else
	echo "($seeds mutants in ${SECONDS} s)"
fi
exit $fail
