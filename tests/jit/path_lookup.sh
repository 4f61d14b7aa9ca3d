#!/usr/bin/env bash
# Usage: path_lookup.sh LOGGER PROGRAM
# Runs PROGRAM by bare name through PATH, natively and under the logger: what it reads
# about itself (exe, cmdline, AT_EXECFN, comm) must be identical.
set -uo pipefail
logger=$1 program=$2
dir=$(dirname "$program") name=$(basename "$program")
native=$(PATH="$dir:$PATH" "$name" x 2>&1)
jit=$(PATH="$dir:$PATH" "$logger" -log 0 -- "$name" x 2>&1)
if [ "$native" != "$jit" ]; then
	diff <(echo "$native") <(echo "$jit")
	exit 1
fi
echo "$jit"
