#!/usr/bin/env bash
# Usage: mix_exact.sh LOGGER APP
# -mix on tests/apps/icount_exact, whose 2120 instructions are known one by one.
set -uo pipefail
logger=$1 app=$2
expected="mix tid=0 instructions 2120
mix tid=0 memory reads 11
mix tid=0 memory writes 101
mix tid=0 extension BASE 2119
mix tid=0 extension LONGMODE 1
mix tid=0 category BINARY 1000
mix tid=0 category COND_BR 1000
mix tid=0 category STRINGOP 105
mix tid=0 category DATAXFER 4
mix tid=0 category MISC 4
mix tid=0 category LOGICAL 3
mix tid=0 category CALL 1
mix tid=0 category RET 1
mix tid=0 category SYSCALL 1
mix tid=0 category UNCOND_BR 1
mix tid=0 mnemonic DEC 1000
mix tid=0 mnemonic JNZ 1000
mix tid=0 mnemonic REP_STOSB 100
mix tid=0 mnemonic REPE_CMPSB 5
mix tid=0 mnemonic LEA 4
mix tid=0 mnemonic MOV 4
mix tid=0 mnemonic XOR 3
mix tid=0 mnemonic CALL 1
mix tid=0 mnemonic JMP 1
mix tid=0 mnemonic RET 1
mix tid=0 mnemonic SYSCALL 1"
got=$("$logger" -log 0 -mix -- "$app" 2>&1)
thread=$(echo "$got" | grep '^mix tid=0 ')
total=$(echo "$got" | grep '^mix total ' | sed 's/^mix total /mix tid=0 /')
if [ "$thread" != "$expected" ] || [ "$total" != "$expected" ]; then
	printf 'FAIL: expected (per thread and total):\n%s\ngot:\n%s\n' "$expected" "$got"
	exit 1
fi
echo "ok: the mix of icount_exact, per thread and in total"
