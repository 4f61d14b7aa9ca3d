#!/usr/bin/env bash
# Usage: champsim_counts.sh LOGGER REPLAYER READER [--knob K]... -- PROGRAM [ARGS...]
# Records PROGRAM and replays it with -trace champsim, -icount and -mix together. Each
# thread's trace (FILE, or FILE.tidN.xz for a multithreaded pinball) must hold one record
# per instruction -icount counted, branches and memory operands as -mix counts them (its
# COND_BR, UNCOND_BR, CALL and RET categories, as ChampSim's reader classifies them from
# the registers), and every record must be well formed. The .xz trace is read back with xz.
set -uo pipefail
logger=$1 replayer=$2 reader=$3
shift 3
source "$(dirname "$0")/../support/run_args.sh"
parse_run_args "$@"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! "$logger" "${knobs[@]}" -log:basename pb/run -- "${program[@]}" >log.out 2>&1; then
	echo "FAIL: recording"
	tail -5 log.out
	exit 1
fi
if ! "$replayer" -replay:echo 0 -icount -oicount icount -mix -omix mix -trace champsim \
	-o trace.xz pb/run.0 >replay.out 2>&1; then
	echo "FAIL: replaying"
	tail -5 replay.out
	exit 1
fi
mixof() { awk -v s="tid=$1" -v k="$2" -v n="$3" '$2 == s && $3 == k && $4 == n { print $5 }' mix; }
threads=$(awk '$2 ~ /^tid=/ { sub("tid=", "", $2); print $2 }' icount)
nthreads=$(echo "$threads" | wc -l)
fail=0
for t in $threads; do
	file=trace.xz
	[ "$nthreads" -gt 1 ] && file=trace.tid$t.xz
	if ! counts=$(xz -dc "$file" | "$reader" --counts); then
		echo "FAIL: thread $t's trace $file is malformed"
		fail=1
		continue
	fi
	c() { echo "$counts" | awk -v k="$1" '$1 == k { print $2 }'; }
	cond=$(mixof "$t" category COND_BR) jmp=$(mixof "$t" category UNCOND_BR)
	call=$(mixof "$t" category CALL) ret=$(mixof "$t" category RET)
	want="records $(awk -v s="tid=$t" '$2 == s { print $3 }' icount)
is_branch $((${cond:-0} + ${jmp:-0}))
conditional ${cond:-0}
jumps ${jmp:-0}
calls ${call:-0}
returns ${ret:-0}
other 0
memory_reads $(mixof "$t" memory reads)
memory_writes $(mixof "$t" memory writes)"
	got="records $(c records)
is_branch $(c is_branch)
conditional $(c conditional)
jumps $(($(c direct_jump) + $(c indirect_jump)))
calls $(($(c direct_call) + $(c indirect_call)))
returns $(c return)
other $(c other)
memory_reads $(c memory_reads)
memory_writes $(c memory_writes)"
	if [ "$got" != "$want" ]; then
		echo "FAIL: thread $t: the trace and -icount/-mix disagree"
		diff <(echo "$want") <(echo "$got")
		fail=1
	else
		echo "ok: thread $t: $(echo "$got" | tr '\n' ' ')"
	fi
done
exit $fail
