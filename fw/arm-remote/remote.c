// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace ARM remote: bare-metal firmware for the Cortex-A15 of QEMU's
 * virt machine, whose RAM the x86 host shares over ivshmem. It declares its
 * memory and its log in a resource table, writes timestamped log lines into
 * the log, bumps a heartbeat word and, when the host asks, hangs.
 *
 * The log (trace0) follows snaptrace's wrap convention: lines are written
 * from offset 0; a line that does not fit before the last byte starts the
 * buffer over at offset 0; a NUL always follows the last line, so a reader
 * sees the lines since the last wrap, up to the first NUL. A reader racing
 * the writer may see one torn line.
 *
 * Time: the generic timer's virtual counter (CNTVCT / CNTFRQ), from the
 * emulator's start. The wait between ticks is WFI, woken by the virtual
 * timer's interrupt through the GIC (interrupts stay masked in the CPU: the
 * handler is the loop itself), so an idle remote costs the host no CPU.
 *
 * Freestanding: fw/include holds the entry layouts (fw_table.h) and the
 * few kernel header definitions (attributes, types) they need; the control
 * block is the host's (snaptrace/ivshmem.h).
 */
#include <fw_table.h>
#include <snaptrace/ivshmem.h>

#include "remote.h"

/* QEMU virt: GICv2 distributor and CPU interface, PL011 UART. */
#define GICD_BASE	0x08000000u
#define GICC_BASE	0x08010000u
#define UART0_DR	0x09000000u
#define VTIMER_IRQ	27u	/* PPI 11: the virtual timer */

/* struct snaptrace_rsc_table, with its offsets spelled out (fw_table.h). */
struct table {
	u32 ver, num, reserved[2];
	u32 offset[2];
	struct fw_carveout fw;
	struct fw_trace log;
} __packed __aligned(4);

__section(".resource_table") __used
const struct table resource_table = {
	.ver = 1,
	.num = 2,
	.offset = {
		__builtin_offsetof(struct table, fw),
		__builtin_offsetof(struct table, log),
	},
	.fw = { SNAPTRACE_RSC_CARVEOUT,
		{ FW_BASE, FW_BASE, FW_LEN, 0, 0, "arm-remote" } },
	.log = { SNAPTRACE_RSC_TRACE, { TRACE0_DA, TRACE0_LEN, 0, "log" } },
};

/* The control block lies in the carveout, below the trace. */
static_assert(SNAPTRACE_IVSHMEM_CTL_DA - FW_BASE < FW_LEN);
static_assert(SNAPTRACE_IVSHMEM_CTL_DA - FW_BASE + SNAPTRACE_IVSHMEM_CTL_SIZE <=
	      TRACE0_DA - FW_BASE);

#define CTL	((volatile struct snaptrace_ivshmem_ctl *)SNAPTRACE_IVSHMEM_CTL_DA)
#define TRACE	((volatile char *)TRACE0_DA)

static inline void wr32(u32 addr, u32 v)
{
	*(volatile u32 *)addr = v;
}

static inline u32 rd32(u32 addr)
{
	return *(volatile u32 *)addr;
}

static inline u32 cntfrq(void)
{
	u32 v;

	__asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r" (v));
	return v;
}

static inline u64 cntvct(void)
{
	u32 lo, hi;

	__asm__ __volatile__("isb; mrrc p15, 1, %0, %1, c14" : "=r" (lo), "=r" (hi));
	return ((u64)hi << 32) | lo;
}

static inline u32 cntv_ctl(void)
{
	u32 v;

	__asm__ __volatile__("mrc p15, 0, %0, c14, c3, 1" : "=r" (v));
	return v;
}

static inline void cntv_set(u32 tval, u32 ctl)
{
	__asm__ __volatile__("mcr p15, 0, %0, c14, c3, 0" : : "r" (tval));
	__asm__ __volatile__("mcr p15, 0, %0, c14, c3, 1; isb" : : "r" (ctl));
}

static u32 freq;
static u32 cursor;
static u32 seq;

/* Let the virtual timer's interrupt reach the CPU interface (to wake WFI). */
static void gic_init(void)
{
	wr32(GICD_BASE + 0x000, 1);			/* GICD_CTLR: enable */
	wr32(GICD_BASE + 0x100, 1u << VTIMER_IRQ);	/* GICD_ISENABLER0 */
	wr32(GICD_BASE + 0x400 + (VTIMER_IRQ & ~3u), 0x80808080u); /* priority */
	wr32(GICC_BASE + 0x004, 0xf0);			/* GICC_PMR */
	wr32(GICC_BASE + 0x000, 1);			/* GICC_CTLR: enable */
}

/* Sleep until the next tick: WFI until the timer fires, then re-arm it. */
static void tick_wait(u32 ticks)
{
	u32 iar;

	while (!(cntv_ctl() & 4))	/* ISTATUS */
		__asm__ __volatile__("wfi" ::: "memory");
	iar = rd32(GICC_BASE + 0x00c);	/* GICC_IAR: acknowledge */
	cntv_set(ticks, 1);		/* re-arm: the line drops */
	if ((iar & 0x3ff) != 1023)
		wr32(GICC_BASE + 0x010, iar);	/* GICC_EOIR */
}

/* A tiny formatter: text, and unsigned decimals zero-padded to a width. */
struct line {
	char buf[120];
	u32 n;
};

static void put_str(struct line *l, const char *s)
{
	while (*s && l->n < sizeof(l->buf) - 1)
		l->buf[l->n++] = *s++;
}

static void put_dec(struct line *l, u32 v, u32 width, char pad)
{
	char tmp[10];
	u32 i = 0;

	do {
		tmp[i++] = '0' + v % 10;
		v /= 10;
	} while (v && i < sizeof(tmp));
	while (width > i && l->n < sizeof(l->buf) - 1) {
		l->buf[l->n++] = pad;
		width--;
	}
	while (i && l->n < sizeof(l->buf) - 1)
		l->buf[l->n++] = tmp[--i];
}

/* Append one line to trace0 (the wrap convention above) and the UART. */
static void log_line(const char *what, u32 arg)
{
	u64 t = cntvct();
	u32 s = (u32)(t / freq);
	u32 us = (u32)((t % freq) * 1000000u / freq);
	struct line l;
	u32 i;

	l.n = 0;
	l.buf[l.n++] = '[';
	put_dec(&l, seq++, 8, '0');
	put_str(&l, "] ");
	put_dec(&l, s, 5, ' ');
	put_str(&l, ".");
	put_dec(&l, us, 6, '0');
	put_str(&l, " arm-remote: boot ");
	put_dec(&l, CTL->boots, 1, '0');
	put_str(&l, " ");
	put_str(&l, what);
	put_dec(&l, arg, 1, '0');
	put_str(&l, "\n");

	if (cursor + l.n + 1 > TRACE0_LEN)
		cursor = 0;
	/* The new end first: a reader never runs into stale text after it. */
	TRACE[cursor + l.n] = '\0';
	for (i = 0; i < l.n; i++) {
		TRACE[cursor + i] = l.buf[i];
		wr32(UART0_DR, (unsigned char)l.buf[i]);
	}
	cursor += l.n;
	CTL->lines = CTL->lines + 1;
}

/* Hung: the heartbeat stops; nothing wakes the core any more. */
static void __noreturn hang(const char *why)
{
	log_line(why, CTL->heartbeat);
	CTL->status = SNAPTRACE_IVSHMEM_STATUS_HUNG;
	cntv_set(0, 0);			/* timer off */
	for (;;)
		__asm__ __volatile__("wfi" ::: "memory");
}

void main(void)
{
	u32 ticks, n = 0;

	freq = cntfrq();
	if (!freq)
		freq = 62500000u;
	ticks = freq / (1000u / TICK_MS);

	CTL->boots = CTL->magic == SNAPTRACE_IVSHMEM_MAGIC ? CTL->boots + 1 : 1;
	CTL->heartbeat = 0;
	CTL->command = SNAPTRACE_IVSHMEM_CMD_NONE;
	CTL->lines = 0;
	CTL->status = SNAPTRACE_IVSHMEM_STATUS_RUNNING;
	CTL->magic = SNAPTRACE_IVSHMEM_MAGIC;
	TRACE[0] = '\0';

	log_line("up, counter Hz ", freq);
	gic_init();
	cntv_set(ticks, 1);
	for (;;) {
		tick_wait(ticks);
		CTL->heartbeat = CTL->heartbeat + 1;
		if (CTL->command == SNAPTRACE_IVSHMEM_CMD_HANG)
			hang("hanging on the host's command, heartbeat ");
#if HANG_AFTER_LINES
		if (CTL->lines >= HANG_AFTER_LINES)
			hang("hanging after the set count, heartbeat ");
#endif
		if (++n % LINE_TICKS == 0)
			log_line("heartbeat ", CTL->heartbeat);
	}
}
