#!/usr/bin/env bash
# Usage: progress.sh LOGGER REPLAYER TICKER SIEVE
# On a terminal (a pseudo-terminal from script(1)) the logger and the replayer show a
# progress line; the app's output stays whole (the line is erased before it), and once the
# line's redraws are taken out what remains is exactly the run without them. Never when
# stderr is no terminal, nor with -q.
set -uo pipefail
logger=$1 replayer=$2 ticker=$3 sieve=$4
command -v script >/dev/null || { echo "script(1) is missing: skipped"; exit 77; }
source "$(dirname "$0")/../support/scratch.sh"

on_terminal() { # COMMAND...: its output through a pseudo-terminal, CR LF made LF
	script -qfec "$(printf '%q ' "$@")" /dev/null | tr -d '\r' >"$work/tty.raw"
}

# Takes the progress lines out: each is drawn as ESC[K then its text up to the next CR or ESC.
without_progress() {
	perl -pe 's/\e\[K(?:(?:logger|replayer): [^\e\n]*)?//g' "$work/tty.raw"
}

# 1. The logger on a terminal: progress between the app's lines, which stay whole.
on_terminal "$logger" -log:basename pb/t -- "$ticker" 3 600
grep -q $'\e\\[Klogger: recording region 0: [0-9.]*K* instructions ([0-9]* MIPS), [0-9.]* [KM]*i*B written' tty.raw ||
	fail "no progress line from the logger: $(cat -v tty.raw)"
without_progress >seen.txt
{ "$ticker" 3 0; echo "logger: wrote pb/t.0: X"; } >want.txt
sed -i 's/^\(logger: wrote pb\/t.0: \).*/\1X/' seen.txt
cmp -s want.txt seen.txt || fail "the terminal showed, progress aside: $(cat -v seen.txt)"
echo "ok: logger progress on a terminal, the app's lines whole"

# 2. The replayer on a terminal (a replay that lasts over a second: about 3 s on the
# development VM, where the sieve of 10^8 replayed in 1.3 s once the replay of a whole run
# lost its budget checks, too close to the first line's second).
"$logger" -q -log:basename pb/s -- "$sieve" 200000000 >sieve.out || fail "recording the sieve"
on_terminal "$replayer" pb/s.0
grep -q $'\e\\[Kreplayer: [0-9]*% of [0-9.]*G instructions' tty.raw ||
	fail "no progress line from the replayer: $(cat -v tty.raw | tail -c 600)"
without_progress | grep -v '^replay: OK ' >seen.txt
cmp -s sieve.out seen.txt || fail "the replay's output, progress aside: $(cat -v seen.txt)"
echo "ok: replayer progress"

# 3. Never without a terminal, nor with -q.
"$logger" -log:basename pb/p -- "$ticker" 2 100 >out.txt 2>err.txt || fail "logger to files"
if grep -q $'\e' out.txt err.txt; then fail "progress without a terminal: $(cat -v err.txt)"; fi
on_terminal "$logger" -q -log:basename pb/q -- "$ticker" 3 600
if grep -q $'\e' tty.raw; then fail "progress with -q: $(cat -v tty.raw)"; fi
on_terminal "$replayer" -q -- pb/s.0
if grep -q $'\e' tty.raw; then fail "replayer progress with -q"; fi
echo "ok: no progress without a terminal or with -q"
