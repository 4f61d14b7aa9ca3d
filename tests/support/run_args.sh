# Sourced by the scripts that run a program natively and under a tool:
#   parse_run_args [--stdin FILE] [--knob K]... [--] PROGRAM [ARGS...]
# sets `stdin` (default /dev/null), the array `knobs` (extra knobs for the tool) and the
# array `program` (the command line).
parse_run_args() {
	stdin=/dev/null
	knobs=()
	while [ "${1:-}" = "--stdin" ] || [ "${1:-}" = "--knob" ]; do
		if [ "$1" = "--stdin" ]; then stdin=$2; else knobs+=("$2"); fi
		shift 2
	done
	[ "${1:-}" = "--" ] && shift
	program=("$@")
}
