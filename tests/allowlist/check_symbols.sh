#!/usr/bin/env bash
# Usage: check_symbols.sh LIBRARY.a ALLOWLIST [DEPENDENCY.a...]
# Fails (exit 1) when the archive references a symbol that neither its own objects nor the
# dependency archives (themselves app-thread libraries, checked on their own) define, and
# that the allowlist does not name. Prints each offender with the object using it.
set -euo pipefail
lib=$1
allow=$2
shift 2
[ -f "$lib" ] || { echo "check_symbols: no such library: $lib" >&2; exit 2; }
[ -f "$allow" ] || { echo "check_symbols: no such allowlist: $allow" >&2; exit 2; }

defined=$(nm -g --defined-only --format=just-symbols "$lib" "$@" 2>/dev/null | sort -u)
allowed=$(grep -v '^[[:space:]]*\(#\|$\)' "$allow" | sort -u)

# nm -A prints "archive:object: U symbol" for undefined references.
offenders=$(nm -A -u "$lib" | awk '{print $NF "\t" $1}' | sort -u |
	while IFS=$'\t' read -r sym where; do
		grep -qxF "$sym" <<<"$defined" && continue
		grep -qxF "$sym" <<<"$allowed" && continue
		printf '%s (used by %s)\n' "$sym" "${where%:}"
	done)

if [ -n "$offenders" ]; then
	echo "$(basename "$lib"): symbols outside the app-thread allowlist:"
	echo "$offenders" | sed 's/^/  /'
	exit 1
fi
echo "$(basename "$lib"): all undefined symbols allowed"
