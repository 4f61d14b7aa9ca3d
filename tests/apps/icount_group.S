/* Exact instruction count through count groups: the blocks a chain falls through to past
 * branches that jump far ahead share one count update, and leaving the group early (a far
 * branch taken) or entering it in its middle (the out-of-line code jumping back to
 * `third`) must leave the count exact. 2408 instructions; exits 0 when the sum is right.
 * The loop runs for ecx = 300 down to 1: odd values go out of line from the group's first
 * block (esi += 7), values 2 mod 4 from its second (esi += 11, the flags live where it
 * lands); all come back to `third` (esi += 5). */
/* LOOPS (a multiple of 4) makes a longer run of the same: 8 * LOOPS + 8 instructions. */
#ifndef LOOPS
#define LOOPS 300
#endif
	.text
	.globl _start, loop, third, odd, two
_start:
	mov $LOOPS, %ecx	/* 1 */
	xor %esi, %esi		/* 1 */
	jmp loop		/* 1: so that the loop's head starts a fragment of its own */
loop:	test $1, %cl		/* 300 */
	jnz odd			/* 300 */
	add $3, %esi		/* 150 */
	test $2, %cl		/* 150 */
	jnz two			/* 150 */
third:	add $5, %esi		/* 300 */
	dec %ecx		/* 300 */
	jnz loop		/* 300 */
	cmp $LOOPS * 51 / 4, %esi /* 1: 150 * (7 + 5) + 150 * 3 + 75 * (11 + 5) + 75 * 5 */
	setne %dil		/* 1 */
	movzbl %dil, %edi	/* 1 */
	mov $60, %eax		/* 1 */
	syscall			/* 1 */
	.skip 256, 0xcc		/* far enough for the branches above to share the count */
odd:	add $7, %esi		/* 150 */
	jmp third		/* 150 */
two:	lea 11(%rsi), %esi	/* 75: no flag written, so the flags are live here */
	jmp third		/* 75 */
	/* total: 3 + 600 + 450 + 900 + 5 + 300 + 150 = 2408 */
	.section .note.GNU-stack, "", @progbits
