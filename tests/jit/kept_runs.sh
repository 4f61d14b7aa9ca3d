# Sourced by the tests of translations kept across runs (-jit:persist), after they set
# $logger and $program: $work (removed at exit), fail MESSAGE, and
# kept_run NAME STATUS COUNT [ARG...], which runs the program with ARGs under
# `$logger -log 0 -icount -jit:stats 1 -jit:persist $work/kept`, shows its messages (kept in
# $work/err), and fails unless it exits STATUS having counted COUNT instructions.
set -uo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "$(basename "$0" .sh): $*"
	exit 1
}
kept_run() {
	local name=$1 want=$2 count=$3
	shift 3
	"$logger" -log 0 -icount -jit:stats 1 -jit:persist "$work/kept" -- "$program" "$@" \
		>"$work/out" 2>"$work/err"
	local status=$?
	cat "$work/err"
	[ "$status" -eq "$want" ] || fail "$name run: exit status $status, not $want"
	grep -qx "icount total $count" "$work/err" || fail "$name run: not $count instructions"
}
