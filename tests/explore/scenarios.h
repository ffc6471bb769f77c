/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The explorer's named scenarios (explore.c): small programs for each
 * simulated CPU's task context, and the operations its IRQs and NMIs run
 * when the schedule injects them (one each, in order). "bound" is the
 * number of non-default choices (a switch of CPU, an injection) the
 * systematic mode explores every combination of; "focus" limits the
 * choices to the time CPU 0's task runs one operation.
 */

static const struct ex_scen ex_scens[] = {
{
	.name = "push_after_seal",
	.about = "a writer reserved before the cut pushes tail after the seal: the snapshot's consumer",
	.ncpu = 2, .home = -1, .bound = 2, .focus = 5,
	.task = {
		{ W(2048), W(2048), W(2048), W(2048), W(2048), W(2048) },
		{ SNAP, CONS(SNAPS, 0, 8) },
	},
},
{
	.name = "basic",
	.about = "writes of every size on two CPUs, a snapshot, a live consumer",
	.ncpu = 2, .home = -1, .bound = 2,
	.task = {
		{ W(16), W(20), SNAP, W(24) },
		{ W(108), W(17), CONS(LIVE, ALL, 2) },
	},
	.irq = { { W(112) } },
	.nmi = { { W(16) }, { SNAP } },
},
{
	.name = "time_forms",
	.about = "EXT and ABS time prefixes, LONG headers, a frame crossing and padding",
	.ncpu = 2, .home = -1, .bound = 2, .focus = 4,
	.task = {
		{ W(2048), W(2048), W(2048), WJ(16, EXT_JUMP), W(2048),
		  WJ(17, ABS_JUMP), WT(40, SNAPTRACE_REC_MARKER), SNAP },
		{ CONS(LIVE, 0, 2), ITER(LIVE, ALL) },
	},
	.irq = { { WJ(24, EXT_JUMP) } },
	.nmi = { { W(2048) } },
},
{
	.name = "stop_when_full",
	.about = "stop-when-full: drops counted in their epoch, a consumer makes room",
	.ncpu = 2, .home = -1, .mode = SNAPTRACE_STOP_WHEN_FULL, .bound = 2,
	.task = {
		{ W(2048), W(2048), W(2048), W(2048), W(2048), SNAP, W(16) },
		{ CONS(LIVE, 0, 3), STATS },
	},
	.nmi = { { W(2048) } },
},
{
	.name = "reserve_on",
	.about = "a one-CPU buffer written from CPU 0 with snaptrace_reserve_on(), snapshots from CPU 1",
	.ncpu = 2, .home = 1, .bound = 2,
	.task = {
		{ WON(1, 40), WON(1, 2048), WON(1, 16) },
		{ SNAP, WALK(1) },
	},
	.nmi = { { WON(1, 24) }, { SNAP } },
},
{
	.name = "hold_clear_reset",
	.about = "a held snapshot walked, a clear and a reset against writers",
	.ncpu = 2, .home = -1, .bound = 2,
	.task = {
		{ W(16), HOLD, W(20), CLEAR, W(24) },
		{ W(16), RESET, W(20), SNAP },
	},
	.irq = { { W(24) } },
	.nmi = { { W(16) } },
},
/* Issue 30, item 1: an interrupted opener raises start and tail. */
{
	.name = "open_interrupted_by_irq",
	.about = "issue 30 #1: an IRQ writer opens the ring under a writer that read head before the opening",
	.ncpu = 2, .home = -1, .bound = 2,
	.task = {
		{ W(16), SNAP, W(24) },
	},
	.irq = { { W(112) } },
},
{
	.name = "open_interrupted_after_reset",
	.about = "issue 30 #1: after a reset, an NMI writer opens the ring under an opener",
	.ncpu = 2, .home = -1, .bound = 2,
	.task = {
		{ W(16), RESET, W(500) },
	},
	.nmi = { { W(24) } },
},
/* Issue 30, item 2: head values repeat (ABA). */
{
	.name = "stale_opener_two_snapshots",
	.about = "issue 30 #2: an opener stalled before its last cmpxchg while two snapshots run",
	.ncpu = 2, .home = -1, .bound = 2,
	.task = {
		{ W(16), SNAP, W(20), CONS(LIVE, 0, 4) },
		{ SNAP, SNAP },
	},
},
{
	.name = "stale_opener_nested_opener",
	.about = "issue 30 #2: a stale opener below a nested opener that raised start and tail and failed",
	.ncpu = 2, .home = -1, .bound = 2,
	.task = {
		{ W(16), SNAP, W(20) },
		{ SNAP, SNAP },
	},
	.nmi = { { W(24) } },
},
{
	.name = "round_held_by_nested_rounds",
	.about = "issue 30 #2: a round held between its state check and its seal by three nested rounds",
	.ncpu = 2, .home = -1, .bound = 4, .focus = 2, .inject_only = true,
	.task = {
		{ W(16), SNAP, W(20) },
	},
	.irq = { { SNAP } },
	.nmi = { { SNAP, SNAP, SNAP, W(24) } },
},
/*
 * Both rings of a CPU live-pending: a snapshot from an NMI settled the
 * new live ring before sealing the former one, the cut of the snapshot
 * it interrupted. A writer that comes then takes that cut before it
 * reserves in the live ring.
 */
{
	.name = "write_while_both_rings_alike",
	.about = "a writer while a nested round has settled the live ring, before its older cut",
	.ncpu = 2, .home = -1, .bound = 3, .focus = 2,
	.task = {
		{ SNAP, W(16) },
		{ SNAP },
	},
	.nmi = { { }, { SNAP } },
},
/*
 * Readers against the writer of the ring they read: overtaken mid-record
 * (the copy's re-check of tail, in st_read_at() and the batched consuming
 * read),
 * when a second snapshot makes the snapshot's ring live and a writer opens
 * it (the re-check of start), and a walk of the snapshot while a second
 * snapshot takes its ring back and writers fill it.
 */
{
	.name = "readers_overtaken",
	.about = "a consumer and an iterator of CPU 0's ring overtaken by its writer mid-record",
	.ncpu = 2, .home = -1, .bound = 2,
	.task = {
		{ W(1500), W(2048), W(2048), W(2048), W(2048), W(2048) },
		{ CONS(LIVE, 0, 2), ITER(LIVE, 0) },
	},
},
{
	.name = "snapshot_readers_across_reuse",
	.about = "a consumer and an iterator of CPU 0's snapshot while a second snapshot makes it live and a writer opens it",
	.ncpu = 2, .home = -1, .bound = 3,
	.task = {
		{ W(16), W(20), SNAP, SNAP, W(24) },
		{ CONS(SNAPS, 0, 1), ITER(SNAPS, 0) },
	},
},
{
	.name = "walk_across_a_snapshot",
	.about = "a walk of CPU 0's snapshot while a second snapshot takes its ring back and its writer fills it",
	.ncpu = 2, .home = -1, .bound = 2,
	.task = {
		{ W(2048), W(2048), SNAP, SNAP, W(2048), W(2048), W(2048), W(2048) },
		{ WALK(0) },
	},
},
/*
 * A reset's close of a CPU's ring that read head open, then was
 * interrupted by a reset nested in it (an NMI) that closed the ring, while
 * that CPU's writer began the next epoch (raised tail, unsealed) before
 * its last step: the outer close must not seal the new epoch's tail.
 */
{
	.name = "reset_close_under_opener",
	.about = "a reset's close held after its read of head while a nested reset closes the ring and its writer reopens it",
	.ncpu = 2, .home = -1, .bound = 3,
	.task = {
		{ RESET },
		{ W(16), W(20) },
	},
	.nmi = { { RESET } },
},
/*
 * An opening under a record still being written: two snapshots from NMIs
 * between a writer's reservation and its commit make its ring live
 * again, and a third NMI's writer opens it. Commit must stay below that
 * record (st_ring_settled(): not settled), or the new epoch's writers
 * reach its bytes.
 */
{
	.name = "open_over_a_record_being_written",
	.about = "two NMI snapshots and an NMI writer's opening between a writer's reservation and its commit",
	.ncpu = 1, .home = -1, .bound = 3, .inject_only = true,
	.task = {
		{ W(16), W(20) },
	},
	.nmi = { { SNAP, SNAP, W(24) } },
},
/*
 * A walk of CPU 0's snapshot that jumps past a record consumed by a
 * reader of the snapshot (tail read after its last re-check of head)
 * while an NMI's round makes the ring live again and its writer opens it,
 * raising tail past the cut: the walk must not return as complete.
 */
{
	.name = "walk_past_a_consumed_record",
	.about = "a walk jumping past a consumed record while an NMI's snapshot and writer reopen the ring",
	.ncpu = 2, .home = -1, .bound = 3, .focus = 4,
	.task = {
		{ W(16), W(20), SNAP, WALK(0) },
		{ CONS(SNAPS, 0, 1) },
	},
	.nmi = { { SNAP, W(24) } },
},
};
