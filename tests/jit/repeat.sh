#!/usr/bin/env bash
# Usage: repeat.sh N COMMAND [ARGS...]
# Runs COMMAND N times in a row; stops at the first failure and shows that run's output.
set -uo pipefail
n=$1
shift
for i in $(seq "$n"); do
	if ! out=$("$@" 2>&1); then
		echo "run $i of $n failed:"
		echo "$out"
		exit 1
	fi
done
echo "$n runs in a row passed: $*"
