#!/usr/bin/env bash
# Usage: forked_code.sh LOGGER
# A forked child's translations are learned by its parent (jit/forked_code.h): bash forks a
# child for each command it runs; the first child translates the code between its fork and
# its exec, tells its parent, which translates it before its next fork, and the children
# after it translate nothing and miss no indirect-branch target, which the parent entered
# in its table (-jit:stats: "forked child translated N blocks, missed M indirect targets" at
# each child's exec, "blocks translated ahead" at the parent's exit). The output is the native one. A
# recorded shell's children start from a cache of their own (their region is over): they
# tell nothing; nor do children under a tool whose translations depend on its state (-mix).
set -uo pipefail
logger=$1
source "$(dirname "$0")/../support/scratch.sh"
per_child() { sed -n 's/.*jit stats: forked child translated \([0-9]*\) blocks.*/\1/p' "$work/err"; }
missed() { sed -n 's/.*jit stats: forked child .*, missed \([0-9]*\) indirect.*/\1/p' "$work/err"; }
ahead() { sed -n 's/.*jit stats: blocks translated ahead for forked children \([0-9]*\).*/\1/p' "$work/err"; }

script='for i in 1 2 3 4 5; do /bin/echo "$i"; done'
as_natively "$script" "$logger" -log 0 -jit:session 0 -jit:stats 1
read -r -a counts <<<"$(per_child | tr '\n' ' ')"
[ "${#counts[@]}" -eq 5 ] || fail "5 children should report, these did: ${counts[*]}"
[ "${counts[0]}" -gt 0 ] || fail "the first child translated nothing: ${counts[*]}"
read -r -a misses <<<"$(missed | tr '\n' ' ')"
for i in 1 2 3 4; do
	[ "${counts[i]}" -eq 0 ] || fail "a later child translated again: ${counts[*]}"
	[ "${misses[i]}" -eq 0 ] || fail "a later child missed indirect targets: ${misses[*]}"
done
[ "$(ahead)" -gt 0 ] || fail "the shell translated nothing ahead: $(ahead)"
echo "bash's 5 children, as natively: translated ${counts[*]} blocks before their exec," \
	"missed ${misses[*]} indirect targets; the shell translated $(ahead) ahead"

as_natively "$script" "$logger" -log:basename "$work/pb" -jit:session 0 -jit:stats 1
[ -z "$(per_child)$(ahead)" ] ||
	fail "a recorded shell's children told their translations: $(per_child) / $(ahead)"
echo "recording: the children tell nothing, as natively"

as_natively "$script" "$logger" -log 0 -mix 1 -omix "$work/mix" -jit:session 0 -jit:stats 1
[ -z "$(per_child)$(ahead)" ] || fail "-mix: children told their translations: $(per_child)"
echo "-mix: the children tell nothing, as natively"
