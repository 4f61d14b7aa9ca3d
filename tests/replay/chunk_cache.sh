#!/usr/bin/env bash
# Usage: chunk_cache.sh LOGGER REPLAYER
# A recorded run shares its pinballs' page chunks through its session directory
# (pinball_writer_set_chunk_cache): bash runs expr five times; the processes after the
# first ones take chunks another packed (-jit:stats: "page chunks taken from the run's
# cache N of M"), and every pinball replays. With -jit:session 0 there is no directory:
# nothing is taken, nor said.
set -uo pipefail
logger=$1 replayer=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "chunk_cache: $*"
	exit 1
}
taken() { sed -n "s/.*page chunks taken from the run's cache \([0-9]*\) of [0-9]*.*/\1/p" "$work/err"; }

script='for i in 1 2 3 4 5; do /usr/bin/expr "$i" + 1; done'
bash -c "$script" >"$work/native.out" || fail "the native run failed"
"$logger" -log:basename "$work/pb/p" -jit:stats 1 -- bash -c "$script" >"$work/out" 2>"$work/err"
status=$?
[ "$status" -eq 0 ] || fail "exit status $status: $(grep -v stats "$work/err" | head -3)"
cmp -s "$work/native.out" "$work/out" || fail "stdout differs from the native run's"
read -r -a counts <<<"$(taken | tr '\n' ' ')"
[ "${#counts[@]}" -eq 6 ] || fail "6 pinballs should say what they took: ${counts[*]}"
[ "${counts[0]}" -eq 0 ] || fail "the first expr took chunks from an empty cache: ${counts[*]}"
[ "${counts[4]}" -gt 0 ] || fail "the last expr took no chunk: ${counts[*]}"
for meta in "$work"/pb/*.meta; do
	verdict=$("$replayer" "${meta%.meta}" 2>&1 | tail -1)
	[[ $verdict == "replay: OK "* ]] || fail "${meta%.meta}: $verdict"
done
echo "5 recorded exprs, as natively: chunks taken ${counts[*]}; every pinball replays"

rm -rf "$work/pb"
"$logger" -log:basename "$work/pb/p" -jit:session 0 -jit:stats 1 -- bash -c "$script" \
	>"$work/out" 2>"$work/err" || fail "-jit:session 0: $(grep -v stats "$work/err" | head -3)"
[ -z "$(taken)" ] || fail "-jit:session 0 took chunks: $(taken)"
echo "-jit:session 0: no cache"
