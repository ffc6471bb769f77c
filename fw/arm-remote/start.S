/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace ARM remote: entry. QEMU starts a bare-metal ELF at its entry
 * point in SVC mode, MMU and caches off. Mask interrupts (the GIC only wakes
 * WFI, nothing is taken), point VBAR at vectors that hang (a fault then
 * stops the heartbeat, as a watchdog would see it), set the stack, clear
 * .bss and run main().
 */
#include "remote.h"

	.syntax unified
	.arm
	.section .text.start, "ax"
	.global _start
_start:
	cpsid	if
	ldr	r0, =vectors
	mcr	p15, 0, r0, c12, c0, 0		@ VBAR
	isb
	ldr	sp, =STACK_TOP
	ldr	r0, =__bss_start
	ldr	r1, =__bss_end
	mov	r2, #0
1:	cmp	r0, r1
	strlo	r2, [r0], #4
	blo	1b
	bl	main
2:	wfi
	b	2b

	.balign	32
vectors:
	.rept	8
	b	.
	.endr
