#!/usr/bin/env bash
# Usage: bad_elf.sh LOGGER PROGRAM SYMBOLS_APP
# Damaged ELF files, as programs and as interpreters: the logger refuses each with one line
# naming the file and what is wrong, and exit status 126; it never crashes (a truncated
# file once killed it with SIGBUS). PROGRAM is a dynamically linked program to damage;
# SYMBOLS_APP is tests/apps/control_targets, whose symbol tables the controller reads.
set -uo pipefail
logger=$1 program=$2 symbols_app=$3
# A short directory: an interpreter path written into a PT_INTERP must fit in its field.
work=$(mktemp -d /tmp/bad_elf.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0

# Little-endian fields of a file: rd FILE OFFSET SIZE, wr FILE OFFSET SIZE VALUE.
rd() { od -An -tu"$3" -j"$2" -N"$3" "$1" | tr -d ' '; }
wr() {
	local bytes='' i
	for ((i = 0; i < $3; i++)); do bytes+=$(printf '\\%03o' $((($4 >> (8 * i)) & 255))); done
	printf "$bytes" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
size() { stat -c %s "$1"; }
# Program header I of FILE: the offset of its first byte.
phdr() { echo $(($(rd "$1" 32 8) + 56 * $2)); }
# The index of the first program header of type T (1 PT_LOAD, 3 PT_INTERP); with `last`,
# of the last one.
find_phdr() { # FILE TYPE [last]
	local n i found=-1
	n=$(rd "$1" 56 2)
	for ((i = 0; i < n; i++)); do
		if [ "$(rd "$1" "$(phdr "$1" $i)" 4)" -eq "$2" ]; then
			found=$i
			[ "${3:-}" = last ] || break
		fi
	done
	echo $found
}

expect() { # NAME EXPECTED-LINE FILE [KNOBS...]: exit 126 and exactly that line
	local name=$1 want=$2 file=$3 out status
	shift 3
	out=$(cd "$work" && "$logger" -log:basename "$work/pb/x" "$@" -- "$file" 2>&1)
	status=$?
	if [ "$status" -ne 126 ] || [ "$out" != "$want" ]; then
		printf 'FAIL %s: status %s\n  got:  %s\n  want: %s\n' "$name" "$status" "$out" "$want"
		fail=1
	else
		echo "ok   $name: $out"
	fi
}

damaged() { # NAME: a fresh executable copy of PROGRAM at $work/NAME
	cp "$program" "$work/$1"
	chmod +x "$work/$1"
	echo "$work/$1"
}

# Truncated inside the ELF header.
f=$(damaged in_header)
truncate -s 40 "$f"
expect in_header "logger: error: cannot run '$f': truncated ELF file (shorter than its 64-byte header)" "$f"

# Truncated inside the program header table.
f=$(damaged in_phdrs)
truncate -s $(($(phdr "$f" 1) + 10)) "$f"
expect in_phdrs "logger: error: cannot run '$f': truncated ELF file: the program header table lies past the end of the file (offset $(rd "$f" 32 8), $((56 * $(rd "$f" 56 2))) bytes, in a file of $(size "$f") bytes)" "$f" -log 0

# Truncated inside the last PT_LOAD's file range (the others end before it).
f=$(damaged in_load)
i=$(find_phdr "$f" 1 last)
off=$(rd "$f" $(($(phdr "$f" "$i") + 8)) 8)
len=$(rd "$f" $(($(phdr "$f" "$i") + 32)) 8)
truncate -s $((off + len / 2)) "$f"
expect in_load "logger: error: cannot run '$f': truncated ELF file: segment $i (PT_LOAD) lies past the end of the file (offset $off, $len bytes, in a file of $(size "$f") bytes)" "$f"

# The issue's own reproduction: the first 4096 bytes of the program, recording on.
f=$(damaged first_page)
truncate -s 4096 "$f"
out=$(cd "$work" && "$logger" -log:basename "$work/pb/y" -- "$f" 2>&1)
status=$?
if [ $status -ne 126 ] || ! grep -Eqx "logger: error: cannot run '$f': truncated ELF file: segment [0-9]+ \(PT_LOAD\) lies past the end of the file \(offset [0-9]+, [0-9]+ bytes, in a file of 4096 bytes\)" <<<"$out"; then
	echo "FAIL first_page: status $status, output: $out"
	fail=1
else
	echo "ok   first_page: $out"
fi

# PT_INTERP pointing past the end of the file.
f=$(damaged interp_past_end)
i=$(find_phdr "$f" 3)
wr "$f" $(($(phdr "$f" "$i") + 8)) 8 $(($(size "$f") + 100))
expect interp_past_end "logger: error: cannot run '$f': truncated ELF file: the interpreter path (PT_INTERP) lies past the end of the file (offset $(($(size "$f") + 100)), $(rd "$f" $(($(phdr "$f" "$i") + 32)) 8) bytes, in a file of $(size "$f") bytes)" "$f"

# e_phnum huge.
f=$(damaged phnum_huge)
wr "$f" 56 2 65535
expect phnum_huge "logger: error: cannot run '$f': 65535 program headers (expected 1 to 64)" "$f"

# An interpreter path without its terminating NUL.
f=$(damaged interp_unterminated)
i=$(find_phdr "$f" 3)
wr "$f" $(($(rd "$f" $(($(phdr "$f" "$i") + 8)) 8) + $(rd "$f" $(($(phdr "$f" "$i") + 32)) 8) - 1)) 1 120
expect interp_unterminated "logger: error: cannot run '$f': the interpreter path (PT_INTERP) does not end with a NUL byte" "$f"

# A sound program whose interpreter is damaged: PT_INTERP rewritten to name it.
interp_of() { # PROGRAM NEW-INTERPRETER: a copy of PROGRAM asking for NEW-INTERPRETER
	local f i off len
	f=$(damaged "prog_$(basename "$2")")
	i=$(find_phdr "$f" 3)
	off=$(rd "$f" $(($(phdr "$f" "$i") + 8)) 8)
	len=$(rd "$f" $(($(phdr "$f" "$i") + 32)) 8)
	[ ${#2} -lt "$len" ] || { echo "FAIL: '$2' does not fit in PT_INTERP" >&2; exit 1; }
	head -c "$len" /dev/zero | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
	printf '%s' "$2" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
	echo "$f"
}
ld_so=$(readelf -lW "$program" | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
cp "$(readlink -f "$ld_so")" "$work/i"
i=$(find_phdr "$work/i" 1 last)
off=$(rd "$work/i" $(($(phdr "$work/i" "$i") + 8)) 8)
len=$(rd "$work/i" $(($(phdr "$work/i" "$i") + 32)) 8)
truncate -s $((off + len / 2)) "$work/i"
f=$(interp_of "$program" "$work/i")
expect bad_interpreter "logger: error: cannot run '$f': its interpreter '$work/i': truncated ELF file: segment $i (PT_LOAD) lies past the end of the file (offset $off, $len bytes, in a file of $(size "$work/i") bytes)" "$f"

# An interpreter that is a FIFO: refused at once, not waited on.
mkfifo "$work/q"
f=$(interp_of "$program" "$work/q")
expect fifo_interpreter "logger: error: cannot run '$f': its interpreter '$work/q': not a regular file" "$f"

# Symbol tables past the end of the file: the controller, which reads them to resolve
# `foo`, finds no symbol and the program runs as natively.
f=$work/symbols
cp "$symbols_app" "$f"
shoff=$(rd "$f" 40 8)
for ((k = 0; k < $(rd "$f" 60 2); k++)); do
	wr "$f" $((shoff + 64 * k + 24)) 8 $((1 << 40)) # sh_offset
	wr "$f" $((shoff + 64 * k + 32)) 8 $((1 << 40)) # sh_size
done
out=$("$logger" -log 0 -control start:address:foo -controller_log "$work/log" -- "$f" calls 2>&1)
status=$?
if [ $status -ne 0 ] || [ "$out" != "calls done" ] || [ -s "$work/log" ]; then
	echo "FAIL symbols_past_end: status $status, output: $out, log: $(cat "$work/log")"
	fail=1
else
	echo "ok   symbols_past_end: the program ran, no symbol resolved"
fi
exit $fail
