#!/usr/bin/env bash
# Usage: bad_files.sh LOGGER
# Files the logger must refuse with exit 126 and a one-line reason naming the file.
set -uo pipefail
logger=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

expect() { # STATUS REGEX FILE
	local out status
	out=$("$logger" -log 0 -- "$3" 2>&1)
	status=$?
	if [ "$status" -ne "$1" ] || ! grep -Eq -- "$2" <<<"$out" || [ "$(wc -l <<<"$out")" -ne 1 ]; then
		echo "FAIL $3: status $status, output: $out"
		fail=1
	else
		echo "ok   $3: $out"
	fi
}

printf 'this is not a program\n' >"$work/garbage"
chmod +x "$work/garbage"
expect 126 "^logger: error: cannot run '.*/garbage': not an ELF executable or #! script$" "$work/garbage"

# A 32-bit ELF header (EI_CLASS = 1) padded to a plausible size.
{ printf '\177ELF\001\001\001'; head -c 120 /dev/zero; } >"$work/elf32"
chmod +x "$work/elf32"
expect 126 "^logger: error: cannot run '.*/elf32': 32-bit ELF programs are not supported$" "$work/elf32"

cp /bin/true "$work/noexec"
chmod -x "$work/noexec"
expect 126 "^logger: error: cannot run '.*/noexec': Permission denied$" "$work/noexec"

printf '#!/nonexistent/interpreter\n' >"$work/badscript"
chmod +x "$work/badscript"
expect 126 "^logger: error: cannot run '/nonexistent/interpreter'" "$work/badscript"
exit $fail
