#!/usr/bin/env bash
# Usage: champsim_exact.sh LOGGER REPLAYER READER APP
# The ChampSim trace of tests/apps/champsim_exact, record by record, field by field: the
# instruction addresses from the program's symbols and lengths, the registers in Pin's
# numbering, the branch outcomes, the data addresses (its stack and buffer are its own).
set -uo pipefail
logger=$1 replayer=$2 reader=$3 app=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sym() { nm "$app" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
start=$(sym _start) buf=$(sym buf) top=$(sym stack_top) leaf=$(sym leaf)
# Pin's register numbers.
RDI=3 RSI=4 RSP=6 RBX=7 RDX=8 RCX=9 RAX=10 R11=14 FLAGS=25 RIP=26 AL=27 EDI=45 ECX=55 EAX=56
# pc OFFSET BR TAKEN DST SRC DMEM SMEM: one expected line (offsets from _start).
line() {
	printf '0x%x %s %s dst=%s src=%s dmem=%s smem=%s\n' $((start + $1)) "$2" "$3" "$4" "$5" \
		"$6" "$7"
}
a() { printf '0x%x' $(($1)); } # an address
none2=0x0,0x0 none4=0x0,0x0,0x0,0x0
expected=$(
	line 0 0 0 $RSP,0 $RIP,0,0,0 $none2 $none4                       # lea stack_top(%rip),%rsp
	line 7 0 0 $ECX,0 0,0,0,0 $none2 $none4                          # mov $2,%ecx
	line 12 0 0 $ECX,$FLAGS $ECX,0,0,0 $none2 $none4                 # dec %ecx
	line 14 1 1 $RIP,0 $RIP,$FLAGS,0,0 $none2 $none4                 # jnz: taken
	line 12 0 0 $ECX,$FLAGS $ECX,0,0,0 $none2 $none4
	line 14 1 0 $RIP,0 $RIP,$FLAGS,0,0 $none2 $none4                 # jnz: not taken
	line 16 0 0 $RDI,0 $RIP,0,0,0 $none2 $none4                      # lea buf(%rip),%rdi
	line 23 0 0 0,0 $RDI,0,0,0 "$(a $buf),0x0" $none4                # movq $5,(%rdi)
	line 30 0 0 $RAX,$FLAGS $RAX,$RDI,0,0 $none2 "$(a $buf+8),0x0,0x0,0x0" # add 8(%rdi),%rax
	line 34 0 0 $RSP,0 $RSP,$RAX,0,0 "$(a $top-8),0x0" $none4        # push %rax
	line 35 0 0 $RSP,$RBX $RSP,0,0,0 $none2 "$(a $top-8),0x0,0x0,0x0" # pop %rbx
	line 36 0 0 $ECX,0 0,0,0,0 $none2 $none4                         # mov $2,%ecx
	line 41 0 0 $RDI,$RCX $RDI,$AL,$RCX,$FLAGS "$(a $buf),0x0" $none4 # rep stosb
	line 41 0 0 $RDI,$RCX $RDI,$AL,$RCX,$FLAGS "$(a $buf+1),0x0" $none4
	line 43 0 0 $RIP,$RSP $RIP,$RSP,0,0 "$(a $top-8),0x0" $none4     # call leaf
	printf '%s 0 0 dst=%s src=%s dmem=%s smem=%s\n' "$(a $leaf)" $RIP,$RSP $RSP,0,0,0 $none2 \
		"$(a $top-8),0x0,0x0,0x0"                                 # ret
	line 48 0 0 $EAX,0 0,0,0,0 $none2 $none4                         # mov $158,%eax
	line 53 0 0 $EDI,0 0,0,0,0 $none2 $none4                         # mov $0x1002,%edi
	line 58 0 0 $RSI,0 $RIP,0,0,0 $none2 $none4                      # lea buf(%rip),%rsi
	line 65 0 0 $RCX,$R11 0,0,0,0 $none2 $none4                      # syscall
	line 67 0 0 $FLAGS,0 $RAX,0,0,0 $none2 $none4                    # cmp %rax,%rax
	line 70 0 0 $RDX,0 0,0,0,0 $none2 "$(a $buf+16),0x0,0x0,0x0"     # mov %fs:16,%rdx
	line 79 1 1 $RIP,0 $RIP,$FLAGS,0,0 $none2 $none4                 # jz 3f: taken
	line 83 0 0 $RAX,0 $RIP,0,0,0 $none2 $none4                      # lea 2f(%rip),%rax
	line 90 1 1 $RIP,0 $RAX,0,0,0 $none2 $none4                      # jmp *%rax
	line 92 1 1 $RIP,0 0,0,0,0 $none2 $none4                         # jmp 4f: direct
	line 96 0 0 $RBX,0 $RIP,0,0,0 $none2 $none4                      # lea leaf(%rip),%rbx
	line 103 0 0 $RIP,$RSP $RIP,$RSP,$RBX,0 "$(a $top-8),0x0" $none4 # call *%rbx
	printf '%s 0 0 dst=%s src=%s dmem=%s smem=%s\n' "$(a $leaf)" $RIP,$RSP $RSP,0,0,0 $none2 \
		"$(a $top-8),0x0,0x0,0x0"                                 # ret
	line 105 0 0 $ECX,$FLAGS $ECX,0,0,0 $none2 $none4                # xor %ecx,%ecx
	line 107 1 1 $RIP,0 $RIP,$RCX,0,0 $none2 $none4                  # jrcxz: taken
	line 111 0 0 $ECX,0 0,0,0,0 $none2 $none4                        # mov $2,%ecx
	line 116 1 1 $RIP,$RCX $RIP,$RCX,0,0 $none2 $none4               # loop: taken
	line 116 1 0 $RIP,$RCX $RIP,$RCX,0,0 $none2 $none4               # loop: not taken
	line 118 0 0 $EDI,$FLAGS $EDI,0,0,0 $none2 $none4                # xor %edi,%edi
	line 120 0 0 $EAX,0 0,0,0,0 $none2 $none4                        # mov $60,%eax
	line 125 0 0 $RCX,$R11 0,0,0,0 $none2 $none4                     # syscall
)
cd "$work"
if ! "$logger" -log:basename pb/run -- "$app" >log.out 2>&1 ||
	! "$replayer" -trace champsim -o trace -icount -oicount icount pb/run.0 >replay.out 2>&1; then
	echo "FAIL: recording or replaying"
	cat log.out replay.out
	exit 1
fi
got=$("$reader" --dump 100 <trace) || exit 1
if [ "$got" != "$expected" ]; then
	echo "FAIL: the trace differs from the expected records"
	diff <(echo "$expected") <(echo "$got")
	exit 1
fi
records=$(($(stat -c %s trace) / 64))
if [ "$records" != 37 ] || ! grep -qx "icount total 37" icount; then
	echo "FAIL: $records records; -icount says: $(cat icount)"
	exit 1
fi
# What ChampSim's reader makes of the branches (its classification, in the test's reader).
kinds=$("$reader" --counts <trace | grep -E '^(direct|indirect|conditional|return|other)' | tr '\n' ' ')
[ "$kinds" = "direct_jump 1 indirect_jump 1 conditional 6 direct_call 1 indirect_call 1 return 2 other 0 " ] ||
	{ echo "FAIL: branch kinds as ChampSim classifies them: $kinds"; exit 1; }
echo "ok: the 37 records of champsim_exact, field by field; branch kinds: $kinds"
