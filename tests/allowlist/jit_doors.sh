#!/usr/bin/env bash
# Usage: jit_doors.sh CC JIT_SOURCE_DIR -I<dir>...
# The JIT's API is the only door: with a client's include path (the -I flags), the public
# headers compile and pull in nothing else of the JIT, and no internal header of the JIT
# can be reached (a name it shares with a system header finds the system's).
set -uo pipefail
cc=$1 jit=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The JIT's files a translation unit depends on, outside its public include/.
jit_internals_used() {
	"$cc" -M -D_GNU_SOURCE "$@" | tr ' \\' '\n\n' | grep "^$jit/" | grep -v "^$jit/include/"
}

for door in jit.h instrument.h jit_app.h jit_messages.h; do
	printf '#include "%s"\n' "$door" >"$work/door.c"
	if ! deps=$("$cc" -M -D_GNU_SOURCE "$@" "$work/door.c" 2>"$work/err"); then
		echo "a client cannot include the API header $door:"
		cat "$work/err"
		exit 1
	fi
	if inside=$(jit_internals_used "$@" "$work/door.c" 2>/dev/null); then
		echo "the API header $door pulls in the JIT's internals: $inside"
		exit 1
	fi
done

checked=0
for path in "$jit"/*.h "$jit"/loader/*.h; do
	h=$(basename "$path")
	printf '#include "%s"\n' "$h" >"$work/inside.c"
	if "$cc" -M -D_GNU_SOURCE "$@" "$work/inside.c" >"$work/deps" 2>"$work/err"; then
		if grep -q "$path" <(tr ' \\' '\n\n' <"$work/deps"); then
			echo "a client can include the JIT's internal header $h"
			exit 1
		fi
	elif ! grep -q "$h: No such file" "$work/err"; then
		echo "including $h failed for another reason than not finding it:"
		cat "$work/err"
		exit 1
	fi
	checked=$((checked + 1))
done
echo "the API headers are reachable and self-contained; $checked internal headers are not reachable"
