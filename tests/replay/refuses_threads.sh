#!/usr/bin/env bash
# Usage: refuses_threads.sh LOGGER PROGRAM
# Recording a multithreaded program is not supported yet: the logger must say so in one
# line, exit non-zero, and leave no file of the unfinished pinball behind.
set -uo pipefail
logger=$1 app=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$("$logger" -log:basename "$work/pb/t" -- "$app" 2>&1 >/dev/null)
status=$?
echo "$out"
[ $status -ne 0 ] || { echo "expected a failure"; exit 1; }
grep -q '^logger: error: .*multithreaded programs is not supported yet$' <<<"$out" || exit 1
left=$(ls -A "$work/pb" 2>/dev/null)
[ -z "$left" ] || { echo "files left behind: $left"; exit 1; }
