# Sourced by test scripts that check where a region starts:
#   symbol PROGRAM NAME    the address of NAME in PROGRAM (nm), as 0x...
#   field NAME TEXT        the value of NAME=... in TEXT (a `pinball dump --part threads` line)
symbol() { printf '0x%x' "0x$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }')"; }
field() { grep -o " $1=[^ ]*" <<<"$2" | cut -d= -f2; }
