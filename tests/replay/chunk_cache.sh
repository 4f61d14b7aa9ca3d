#!/usr/bin/env bash
# Usage: chunk_cache.sh LOGGER REPLAYER
# A recorded run shares its pinballs' page chunks through its session directory
# (pinball_writer_set_chunk_cache): bash runs expr five times; the processes after the
# first ones take chunks another packed (-jit:stats: "page chunks taken from the run's
# cache N of M"), and every pinball replays; the same with -jit:persist, whose kept
# translations go to their own directory; the run's directory is gone at its end. With
# -jit:session 0 there is no directory: nothing is taken, nor said.
set -uo pipefail
logger=$1 replayer=$2
source "$(dirname "$0")/../support/scratch.sh"
export TMPDIR=$work/tmp
mkdir "$TMPDIR"
taken() { sed -n "s/.*page chunks taken from the run's cache \([0-9]*\) of [0-9]*.*/\1/p" "$work/err"; }

script='for i in 1 2 3 4 5; do /usr/bin/expr "$i" + 1; done'
# records the script with KNOBS...: 6 pinballs, the last exprs taking chunks, all replaying
shared_and_replayed() {
	rm -rf "$work/pb"
	as_natively "$script" "$logger" -log:basename "$work/pb/p" -jit:stats 1 "$@"
	read -r -a counts <<<"$(taken | tr '\n' ' ')"
	[ "${#counts[@]}" -eq 6 ] || fail "$*: 6 pinballs should say what they took: ${counts[*]}"
	[ "${counts[0]}" -eq 0 ] || fail "$*: the first expr took chunks from nothing: ${counts[*]}"
	[ "${counts[4]}" -gt 0 ] || fail "$*: the last expr took no chunk: ${counts[*]}"
	for meta in "$work"/pb/*.meta; do
		verdict=$("$replayer" "${meta%.meta}" 2>&1 | tail -1)
		[[ $verdict == "replay: OK "* ]] || fail "$*: ${meta%.meta}: $verdict"
	done
	[ -z "$(ls "$TMPDIR")" ] || fail "$*: the run's directory stayed: $(ls "$TMPDIR")"
	echo "5 recorded exprs (${*:-the default knobs}), as natively: chunks taken ${counts[*]}; every pinball replays"
}
shared_and_replayed
shared_and_replayed -jit:persist "$work/kept"
ls "$work"/kept/*.jit >/dev/null 2>&1 || fail "-jit:persist kept no translations"

rm -rf "$work/pb"
as_natively "$script" "$logger" -log:basename "$work/pb/p" -jit:session 0 -jit:stats 1
[ -z "$(taken)" ] || fail "-jit:session 0 took chunks: $(taken)"
echo "-jit:session 0: no cache"
