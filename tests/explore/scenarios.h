/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The explorer's named scenarios (explore.c): small programs for each
 * simulated CPU's task context, and the operations its IRQs and NMIs run
 * when the schedule injects them (one each, in order). "bound" is the
 * number of non-default choices (a switch of CPU, an injection) the
 * systematic mode explores every combination of.
 */

static const struct ex_scen ex_scens[] = {
{
	.name = "basic",
	.about = "writes of every size on two CPUs, a snapshot, a live consumer",
	.ncpu = 2, .home = -1, .bound = 1,
	.task = {
		{ W(16), W(20), SNAP, W(24) },
		{ W(108), W(17), CONS(LIVE, ALL, 2) },
	},
	.irq = { { W(112) } },
	.nmi = { { W(16) }, { SNAP } },
},
};
