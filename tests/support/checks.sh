# Sourced by test scripts that compare outputs: a work directory removed at exit, `fail`
# (the script's exit status: `exit $fail` at the end), and
#   check WHAT EXPECTED ACTUAL
# which prints "ok   WHAT", or "FAIL WHAT" with both texts and sets fail=1.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

check() { # WHAT EXPECTED ACTUAL
	if [ "$2" == "$3" ]; then
		echo "ok   $1"
	else
		printf 'FAIL %s\nexpected:\n%s\ngot:\n%s\n' "$1" "$2" "$3"
		fail=1
	fi
}
