#!/usr/bin/env bash
# Usage: library.sh LOGGER REPLAYER CACHESIM SIEVE_APP THREADS_APP
# The replay library through its example simulator (examples/cachesim): on a recorded
# pinball it sees as many instructions as replayer -icount counts, two runs print the same,
# the pull iterator and the callback give the same, the registers it asks for agree with
# the threads' start states and with instructions that write none, the region's memory
# holds the first instruction's bytes at its pc, a multithreaded pinball
# is seen whole, and a missing pinball is one line and exit 2. A region of THREADS_APP
# from its last thread's 300 000th instruction finds most threads inside a syscall (their
# joins and waits): their first instruction sees the call's result in rax, as
# ptr_thread_state.in_syscall tells (cachesim --regs compares the rest).
set -uo pipefail
logger=$1 replayer=$2 cachesim=$3 sieve=$4 threads=$5
export PINTRACE_REPLAYER=$replayer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
icount() { "$replayer" -replay:echo 0 -icount -oicount ic "$1" 2>/dev/null; sed -nE 's/^icount total ([0-9]+)$/\1/p' ic; }
"$logger" -log:basename pb/sieve -- "$sieve" 20000 >/dev/null 2>&1 || bad "recording"
"$cachesim" pb/sieve.0 >run1 2>err1 || bad "cachesim: $(cat err1)"
"$cachesim" pb/sieve.0 >run2 2>/dev/null || bad "cachesim, second run"
"$cachesim" --pull pb/sieve.0 >pull 2>/dev/null || bad "cachesim --pull"
want=$(icount pb/sieve.0)
got=$(sed -nE 's/^instructions ([0-9]+)$/\1/p' run1)
[ -n "$want" ] && [ "$got" = "$want" ] || bad "cachesim saw $got instructions, -icount $want"
cmp -s run1 run2 || bad "two runs differ"
cmp -s run1 pull || bad "the pull iterator and the callback differ"
grep -q '^cachesim: replay: OK' err1 || bad "no OK verdict: $(cat err1)"
"$cachesim" --regs pb/sieve.0 >regs 2>/dev/null || bad "cachesim --regs"
grep -Eq '^registers checked [1-9][0-9]* wrong 0$' regs || bad "registers: $(grep registers regs)"
"$cachesim" --memory pb/sieve.0 >memory 2>/dev/null || bad "cachesim --memory"
grep -Eq '^memory ranges [1-9][0-9]* bytes [1-9][0-9]* code checked 1 wrong 0$' memory ||
	bad "memory: $(grep memory memory)"
"$logger" -log:basename pb/mt -- "$threads" >/dev/null 2>&1 || bad "recording threads"
"$cachesim" pb/mt.0 >mt 2>/dev/null || bad "cachesim on a multithreaded pinball"
want=$(icount pb/mt.0)
got=$(sed -nE 's/^instructions ([0-9]+)$/\1/p' mt)
[ -n "$want" ] && [ "$got" = "$want" ] || bad "multithreaded: $got instructions, -icount $want"
"$logger" -log:basename pb/late -control start:icount:300000:tid8 -- "$threads" >/dev/null 2>&1 ||
	bad "recording a region of threads"
"$(dirname "$replayer")/pinball" info pb/late.0 | grep -q 'starts inside a syscall$' ||
	bad "no thread of the late region starts inside a syscall"
"$cachesim" --regs pb/late.0 >late 2>/dev/null || bad "cachesim --regs on the late region"
grep -Eq '^registers checked [1-9][0-9]* wrong 0$' late || bad "late region's registers: $(grep registers late)"
out=$("$cachesim" pb/nothing.0 2>&1)
status=$?
if [ $status -ne 2 ] || [ "$(wc -l <<<"$out")" -ne 1 ] || ! grep -q "nothing.0.meta" <<<"$out"; then
	bad "a missing pinball: exit $status: $out"
fi
[ $fail = 0 ] && echo "ok: $got and $(sed -nE 's/^instructions //p' run1) instructions as -icount; repeatable; pull = callback; registers"
exit $fail
