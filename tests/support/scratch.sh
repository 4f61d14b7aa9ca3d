# Sourced by test scripts that stop at the first problem: a scratch directory, made the
# current one and removed at exit, and
#   fail MESSAGE
# which prints "FAIL: MESSAGE" and exits 1.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

fail() {
	echo "FAIL: $*"
	exit 1
}

# as_natively SCRIPT TOOL...: `bash -c SCRIPT` natively, then under `TOOL... --`, its
# stderr in $work/err; fails unless the tool's run exits 0 with the native run's stdout.
as_natively() {
	local script=$1
	shift
	bash -c "$script" >"$work/native.out" || fail "the native run failed"
	"$@" -- bash -c "$script" >"$work/out" 2>"$work/err"
	local status=$?
	[ "$status" -eq 0 ] || fail "$*: exit status $status: $(grep -v stats "$work/err" | head -3)"
	cmp -s "$work/native.out" "$work/out" || fail "$*: stdout differs from the native run's"
}
