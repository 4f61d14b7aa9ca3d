#!/usr/bin/env bash
# Usage: expect_rejected.sh CHECKER LIBRARY ALLOWLIST SYMBOL...
# Passes only when CHECKER rejects LIBRARY and names every SYMBOL in its report.
set -uo pipefail
checker=$1 lib=$2 allow=$3
shift 3
out=$("$checker" "$lib" "$allow")
status=$?
echo "$out"
if [ "$status" -ne 1 ]; then
	echo "expected the checker to reject $lib (exit 1), got exit $status"
	exit 1
fi
for sym in "$@"; do
	if ! grep -q "^  $sym (used by" <<<"$out"; then
		echo "the checker did not name '$sym'"
		exit 1
	fi
done
