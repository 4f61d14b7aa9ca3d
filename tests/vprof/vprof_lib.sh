# Sourced by the value profilers' tests: a work directory and checks (checks.sh), readers of
# the profile file (docs/vprofile-format.md) and of `pinball vplist`'s hotlists.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"

# The address a test program printed for NAME ("NAME 0x...") in FILE, as 0x<hex>.
printed() { # FILE NAME
	awk -v n="$2" '$1 == n { print $2; exit }' "$1"
}

# The profile's record of pc: its "insn" line's executions and samples.
insn_counts() { # PROFILE PC
	awk -v pc="$2" '$1 == "insn" && $2 == pc { print $4, $5 }' "$1"
}

# The "value" lines of pc, as "VALUE COUNT CONTEXT0 CONTEXT1", sorted by value.
values_of() { # PROFILE PC
	awk -v pc="$2" '$1 == "insn" { at = ($2 == pc) } $1 == "value" && at { print $2, $3, $4, $5 }' \
		"$1" | sort
}

# The lines vplist prints about pc: its instruction line and its hotlist.
hotlist() { # LISTING PC
	awk -v pc="$2" '$1 == pc { on = 1 } on && $0 == "" { exit } on' "$1"
}

# A non-zero exit and one line on stderr that contains TEXT.
refused() { # WHAT TEXT COMMAND...
	local what=$1 text=$2
	shift 2
	local err status
	err=$("$@" 2>&1 >/dev/null)
	status=$?
	if ((status != 0)) && [[ $err == *"$text"* ]] && (($(wc -l <<<"$err") == 1)); then
		echo "ok   $what: $err"
	else
		printf 'FAIL %s: exit %d, wanted one line with "%s", got:\n%s\n' "$what" "$status" \
			"$text" "$err"
		fail=1
	fi
}
