#!/usr/bin/env bash
# Usage: icount_file.sh LOGGER PROGRAM COUNT
# -icount on an exact-count program, to stderr and with -oicount to a file (given
# relative to a directory the logger runs in): both must say exactly COUNT.
set -uo pipefail
logger=$1 program=$2 count=$3
expected="icount tid=0 $count"$'\n'"icount total $count"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

got=$("$logger" -log 0 -icount -- "$program" 2>&1)
if [ "$got" != "$expected" ]; then
	printf 'stderr report differs:\n%s\n' "$got"
	exit 1
fi
(cd "$work" && "$logger" -log 0 -icount -oicount counts.txt -- "$program") || exit 1
if [ "$(cat "$work/counts.txt")" != "$expected" ]; then
	printf -- '-oicount file differs:\n%s\n' "$(cat "$work/counts.txt")"
	exit 1
fi
echo "icount exact on stderr and in the -oicount file"
