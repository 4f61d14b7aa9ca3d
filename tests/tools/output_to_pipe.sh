#!/usr/bin/env bash
# Usage: output_to_pipe.sh LOGGER PROGRAM
# A report written to /dev/stdout or /dev/stderr when they are pipes (names that resolve
# to no file): `-oicount /dev/stdout` into a pipe gives the count (PROGRAM is
# tests/apps/icount_exact: 2120 instructions), `-omix /dev/stderr` the mix.
set -uo pipefail
logger=$1 app=$2
fail() { echo "FAIL: $*"; exit 1; }
out=$("$logger" -log 0 -icount -oicount /dev/stdout -- "$app" 2>&1 | cat)
grep -q '^icount total 2120$' <<<"$out" || fail "-oicount /dev/stdout into a pipe: $out"
out=$( { "$logger" -log 0 -mix -omix /dev/stderr -- "$app" 2>&1 >/dev/null; } | cat)
grep -q '^mix total instructions 2120$' <<<"$out" || fail "-omix /dev/stderr into a pipe: $out"
echo "ok   -oicount /dev/stdout and -omix /dev/stderr into pipes"
