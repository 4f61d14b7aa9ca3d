#!/usr/bin/env bash
# Usage: repeat.sh N COMMAND [ARGS...]
# Runs COMMAND N times in a row; stops at the first failure and shows that run's output.
# A run that takes longer than REPEAT_RUN_LIMIT seconds (default 120) is a hang: the
# backtraces of every thread of every process it left running are shown (gdb), then it is
# killed and the test fails, instead of waiting for CTest's timeout with nothing to show.
set -uo pipefail
n=$1
shift
limit=${REPEAT_RUN_LIMIT:-120}
out=$(mktemp)
trap 'rm -f "$out" "$out.hang"' EXIT

descendants() { # PID: every process below it
	local child
	for child in $(ps -o pid= --ppid "$1"); do
		echo "$child"
		descendants "$child"
	done
}

show_hang() { # RUN PID
	local pid
	echo "run $1 of $n hung for more than ${limit} s; its threads:"
	for pid in "$2" $(descendants "$2"); do
		echo "--- process $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
		timeout 60 gdb -p "$pid" -batch -nx -ex "thread apply all bt 12" 2>&1 |
			grep -E '^(Thread|#)' | head -80
	done
}

for i in $(seq "$n"); do
	setsid "$@" >"$out" 2>&1 &
	run=$!
	(
		trap 'kill "$nap" 2>/dev/null; exit' TERM
		sleep "$limit" &
		nap=$!
		wait "$nap" && show_hang "$i" "$run" >"$out.hang" && kill -9 -- "-$run"
	) &
	watchdog=$!
	wait "$run"
	status=$?
	kill "$watchdog" 2>/dev/null
	wait "$watchdog" 2>/dev/null
	if [ -s "$out.hang" ]; then
		cat "$out.hang"
		echo "its output:"
		head -c 4000 "$out"
		exit 1
	fi
	if [ "$status" -ne 0 ]; then
		echo "run $i of $n failed:"
		cat "$out"
		exit 1
	fi
done
echo "$n runs in a row passed: $*"
