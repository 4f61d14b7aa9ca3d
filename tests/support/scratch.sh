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
