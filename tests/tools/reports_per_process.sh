#!/usr/bin/env bash
# Usage: reports_per_process.sh LOGGER
# A report file names the process the user started; every other process of the run (a
# shell's programs) writes FILE.pid<PID> (before a .xz or .gz: trace.pid<PID>.xz), as its
# pinballs are B.pid<PID>.k. A shell that runs /bin/true twice leaves three -icount
# reports, each with its own count, and three debug traces. (A program the started process
# execs writes its file in turn, after the one that exec'd: a #! wrapper's program's report
# is the one left; `exit 0` keeps the shell from exec'ing its last command.)
set -uo pipefail
logger=$1
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
"$logger" -log 0 -icount -oicount ic -debugtrace -odebugtrace t.xz -- \
	bash -c '/bin/true; /bin/true; exit 0' || fail "the run failed"
[ -f ic ] && [ "$(ls ic.pid* 2>/dev/null | wc -l)" = 2 ] ||
	fail "reports: $(ls)"
for f in ic ic.pid*; do
	grep -Eq '^icount total [1-9][0-9]*$' "$f" || fail "$f: $(cat "$f")"
done
[ "$(sed -n 's/^icount total //p' ic)" -gt "$(sed -n 's/^icount total //p' ic.pid* | head -1)" ] ||
	fail "the shell's count is not its own: $(cat ic ic.pid*)"
[ -f t.xz ] && [ "$(ls t.pid*.xz 2>/dev/null | wc -l)" = 2 ] || fail "traces: $(ls)"
for f in t.xz t.pid*.xz; do
	xz -t "$f" || fail "$f is not a whole .xz file"
done
echo "ok   a report per process: ic, ic.pid<PID> x 2; t.xz, t.pid<PID>.xz x 2"
