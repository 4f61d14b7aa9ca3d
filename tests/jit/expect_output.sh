#!/usr/bin/env bash
# Usage: expect_output.sh STATUS REGEX -- COMMAND [ARGS...]
# Passes when COMMAND exits with STATUS and its stderr+stdout match the extended REGEX.
set -uo pipefail
want_status=$1 regex=$2
shift 2
[ "${1:-}" = "--" ] && shift
out=$("$@" 2>&1)
status=$?
echo "$out"
if [ "$status" -ne "$want_status" ]; then
	echo "expected exit status $want_status, got $status"
	exit 1
fi
if ! grep -Eq -- "$regex" <<<"$out"; then
	echo "output does not match: $regex"
	exit 1
fi
