# Sourced by the replay benchmarks (bench/sim/champsim, bench/vprof/run): the four public
# workloads recorded whole, their longest pinballs, and timed replays.
#
# replay_workloads_setup DIR SCALE: writes the inputs into DIR and sets `order` (the
# workloads' names), `cmd` and `input` (each workload's command line and stdin file); scale
# 4 gives about 50-100 million instructions each.
replay_workloads_setup() {
	local tmp=$1 scale=$2 root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	python3 "$root/bench/jit/gen_input.py" "$(echo "$scale / 16" | bc -l)" >"$tmp/small"
	python3 "$root/bench/jit/gen_input.py" "$scale" >"$tmp/text"
	bash "$root/bench/jit/sqlite.sh" $((scale * 5000)) >"$tmp/script.sql"
	declare -gA cmd input
	order=(gzip sort sqlite python)
	cmd[gzip]="gzip -6 -n -c $tmp/small"
	cmd[sort]="sort --parallel=1 $tmp/text"
	cmd[sqlite]="sqlite3 :memory:" input[sqlite]=$tmp/script.sql
	cmd[python]="python3 $root/bench/jit/loop.py $((scale * 10000))"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# record_longest LOGGER PINBALL_CLI DIR WORKLOAD: records the workload whole under DIR/pb and
# prints its longest pinball (a program that execs or forks leaves several) and that
# pinball's instructions.
record_longest() {
	local logger=$1 pinball=$2 tmp=$3 w=$4 pb=$3/pb/$4 n=0 best meta m
	# shellcheck disable=SC2086
	(cd "$tmp" && "$logger" -log:basename "$pb" -- ${cmd[$w]} <"${input[$w]:-/dev/null}" \
		>/dev/null 2>&1) || { echo "recording $w failed" >&2; exit 1; }
	for meta in "$pb".*.meta; do
		m=$("$pinball" info "${meta%.meta}" | awk '$1 == "instructions" { print $2; exit }')
		[ "$m" -gt "$n" ] && n=$m best=${meta%.meta}
	done
	echo "$best $n"
}

# timed_replay REPLAYER PINBALL KNOBS...: seconds of one replay (exits loudly unless the
# replay ends with `replay: OK`).
timed_replay() {
	local replayer=$1 pb=$2 start end out
	shift 2
	start=$(date +%s.%N)
	out=$("$replayer" -replay:echo 0 "$@" "$pb" 2>&1 >/dev/null)
	end=$(date +%s.%N)
	if ! grep -q '^replay: OK' <<<"$out"; then
		echo "FAILED: $replayer -replay:echo 0 $* $pb: $out" >&2
		exit 1
	fi
	echo "$end - $start" | bc -l
}
