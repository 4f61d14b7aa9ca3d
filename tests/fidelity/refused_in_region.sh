#!/usr/bin/env bash
# Usage: refused_in_region.sh LOGGER REGEX -- PROGRAM [ARGS...]
# Passes when the logger, recording PROGRAM whole, stops with exit status 1 and the one-line
# error REGEX, and leaves no file behind (no pinball, no part of one).
set -uo pipefail
logger=$1 regex=$2
shift 2
[ "${1:-}" = "--" ] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
"$logger" -log:basename p -- "$@" >out 2>err
status=$?
cat out err
[ "$status" -eq 1 ] || { echo "expected exit status 1, got $status"; exit 1; }
[ "$(wc -l <err)" -eq 1 ] && grep -Eq -- "$regex" err || { echo "expected one line matching: $regex"; exit 1; }
left=$(ls | grep -v -x -e out -e err)
[ -z "$left" ] || { echo "left behind: $left"; exit 1; }
echo "refused: $(cat err)"
