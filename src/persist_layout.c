// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace: the persistent region's layout and checksums
 * (Documentation/persist.rst, "What the region looks like"): the sizes and
 * offsets of its structures, fixed on every architecture and word size;
 * the CRC its headers, rows and entries carry, safe in NMI; and where its
 * tables and entries lie in a region of a given size. Shared by the
 * arming and the capture (persist_capture.c) and by the parsing of a
 * previous boot's capture (persist_parse.c). No upstream twin.
 */
#include <linux/align.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/overflow.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <kunit/visibility.h>

#include "persist.h"

static_assert(sizeof(struct st_pr_hdr) % ST_PR_ALIGN == 0);
static_assert(sizeof(struct st_pr_cap) % ST_PR_ALIGN == 0);
static_assert(sizeof(struct st_pr_ent) % ST_PR_ALIGN == 0);
static_assert(sizeof(struct st_pr_cpu) % ST_PR_ALIGN == 0);
static_assert(sizeof(struct st_pr_src) % ST_PR_ALIGN == 0);
/* A source's row in an entry's cpu field never looks like a CPU. */
static_assert(ST_PR_CPUS_MAX < ST_PR_ENT_SRC);
/*
 * The region outlives the kernel that wrote it: its layout is the same on
 * every architecture and word size (fixed-width fields, each at a
 * multiple of its size, no implicit padding: as x86-64 lays it out), so
 * that a 32-bit ARM kernel reads what a 64-bit one wrote and back.
 */
static_assert(sizeof(struct st_pr_hdr) == 72);
static_assert(offsetof(struct st_pr_hdr, nr_cpus) == 48);
static_assert(offsetof(struct st_pr_hdr, data_off) == 64);
static_assert(sizeof(struct st_pr_mod) == 64);
static_assert(sizeof(struct st_pr_cap) == 464);
static_assert(offsetof(struct st_pr_cap, real_ns) == 24);
static_assert(offsetof(struct st_pr_cap, mods) == 56);
static_assert(offsetof(struct st_pr_cap, msg) == 312);
static_assert(offsetof(struct st_pr_cap, data_bytes) == 440);
static_assert(offsetof(struct st_pr_cap, torn) == 456);
static_assert(sizeof(struct st_pr_cpu) == 32);
static_assert(sizeof(struct st_pr_src) == 72);
static_assert(offsetof(struct st_pr_src, entries) == 8);
static_assert(offsetof(struct st_pr_src, name) == 16);
static_assert(offsetof(struct st_pr_src, len) == 64);
static_assert(offsetof(struct st_pr_src, fmt) == 68);
/* The row's own CRC covers it from its name to its end (len, fmt). */
static_assert(offsetof(struct st_pr_src, fmt) + sizeof(u32) ==
	      sizeof(struct st_pr_src));
static_assert(sizeof(struct st_pr_ent) == 40);
static_assert(offsetof(struct st_pr_ent, seq) == 16);
static_assert(offsetof(struct st_pr_ent, pos) == 32);
static_assert(offsetof(struct st_pr_ent, data) == 40);

/*
 * The region's CRC: the same function as crc32_le() (CRC-32, reflected,
 * polynomial 0xedb88320, no inversion), computed here a nibble at a time
 * from a table of 16. Not crc32_le() itself: on kernels that give it to
 * the architecture (CONFIG_CRC32_ARCH, 7.x) it may use the FPU, and
 * irq_fpu_usable() warns in NMI, where the capture may run; the generic
 * crc32_le_base() is not exported. The table is constant: nothing to set
 * up, nothing that a panic could find half done.
 */
static const u32 st_pr_crc_nibble[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
	0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

/**
 * snaptrace_persist_crc() - the region's CRC of @len bytes at @p
 * @crc: the CRC so far (~0 to start)
 * @p: the bytes
 * @len: how many
 *
 * Equal to crc32_le(@crc, @p, @len), and safe in NMI on every kernel.
 *
 * Context: any, NMI included.
 * Return: the CRC of @p following @crc.
 */
u32 snaptrace_persist_crc(u32 crc, const u8 *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ st_pr_crc_nibble[crc & 15];
		crc = (crc >> 4) ^ st_pr_crc_nibble[crc & 15];
	}
	return crc;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_crc);

/**
 * snaptrace_persist_hdr_crc() - the CRC of the region's header
 * @h: the header
 *
 * Of the header with its hdr_crc as 0. No upstream twin.
 *
 * Context: any, NMI included.
 * Return: the CRC, for hdr_crc.
 */
u32 snaptrace_persist_hdr_crc(const struct st_pr_hdr *h)
{
	struct st_pr_hdr c = *h;

	c.hdr_crc = 0;
	return snaptrace_persist_crc(~0, (const u8 *)&c, sizeof(c));
}

/**
 * snaptrace_persist_cap_crc() - the capture's CRC
 * @cap: the capture's header
 * @table: the per-CPU table, the sources' table right after it
 * @nr_cpus: CPUs of @table; 0: the capture's header alone (the preamble's
 *	CRC, sealed before any record)
 *
 * Its header (state, cap_crc as 0), then the per-CPU table and the
 * sources' table, which follows it (none if @nr_cpus is 0). No upstream
 * twin.
 *
 * Context: any, NMI included.
 * Return: the CRC, for cap_crc.
 */
u32 snaptrace_persist_cap_crc(const struct st_pr_cap *cap,
			      const struct st_pr_cpu *table, unsigned int nr_cpus)
{
	u32 z = 0, crc;

	crc = snaptrace_persist_crc(~0, (const u8 *)&z, sizeof(z));
	crc = snaptrace_persist_crc(crc, (const u8 *)&z, sizeof(z));
	crc = snaptrace_persist_crc(crc, (const u8 *)cap + 2 * sizeof(u32),
				    sizeof(*cap) - 2 * sizeof(u32));
	if (!nr_cpus)
		return crc;
	return snaptrace_persist_crc(crc, (const u8 *)table,
				     (size_t)nr_cpus * sizeof(*table) +
				     ST_PR_SRCS * sizeof(struct st_pr_src));
}

/**
 * snaptrace_persist_src_crc() - a source row's own CRC
 * @src: the row
 * @row: its index in the sources' table
 * @boot_id: the arming load's boot id
 *
 * Of the boot id, the row's index, then the row from its name to its end:
 * the name, the trace's length and its format, which the next load needs
 * to show the text even of a capture that did not finish. No upstream
 * twin.
 *
 * Context: any, NMI included.
 * Return: the CRC, for name_crc.
 */
u32 snaptrace_persist_src_crc(const struct st_pr_src *src, u32 row, u64 boot_id)
{
	u32 crc;

	crc = snaptrace_persist_crc(~0, (const u8 *)&boot_id, sizeof(boot_id));
	crc = snaptrace_persist_crc(crc, (const u8 *)&row, sizeof(row));
	return snaptrace_persist_crc(crc, (const u8 *)src +
				     offsetof(struct st_pr_src, name),
				     sizeof(*src) -
				     offsetof(struct st_pr_src, name));
}

/**
 * snaptrace_persist_ent_crc() - an entry's CRC
 * @e: the entry, its len and payload as written
 * @boot_id: the arming load's boot id
 *
 * An entry's CRC starts with the boot id, so that an unfinished capture's
 * entries are told from an older capture's left in the data area; then
 * the entry (marker, crc as 0) and its payload. No upstream twin.
 *
 * Context: any, NMI included.
 * Return: the CRC, for the entry's crc.
 */
u32 snaptrace_persist_ent_crc(const struct st_pr_ent *e, u64 boot_id)
{
	u32 z = 0, crc;

	crc = snaptrace_persist_crc(~0, (const u8 *)&boot_id, sizeof(boot_id));
	crc = snaptrace_persist_crc(crc, (const u8 *)&z, sizeof(z));
	crc = snaptrace_persist_crc(crc, (const u8 *)&z, sizeof(z));
	return snaptrace_persist_crc(crc, (const u8 *)e + 2 * sizeof(u32),
				     sizeof(*e) - 2 * sizeof(u32) + e->len);
}

/**
 * snaptrace_persist_geometry() - where a region's tables and data start
 * @size: the region's bytes
 * @nr_cpus: CPUs of its per-CPU table
 * @table_off: set to the per-CPU table's offset (the sources' table right
 *	after it)
 * @data_off: set to the first entry's offset
 *
 * The geometry of a region of @size bytes for @nr_cpus CPUs. Every step
 * is checked for overflow. No upstream twin.
 *
 * Context: any.
 * Return: 0, or -ERANGE if @nr_cpus is 0 or more than %ST_PR_CPUS_MAX,
 * or the headers do not fit in @size.
 */
int snaptrace_persist_geometry(u64 size, u64 nr_cpus, u64 *table_off,
			       u64 *data_off)
{
	u64 t = sizeof(struct st_pr_hdr) + sizeof(struct st_pr_cap), tb, d;

	if (!nr_cpus || nr_cpus > ST_PR_CPUS_MAX)
		return -ERANGE;
	if (check_mul_overflow(nr_cpus, (u64)sizeof(struct st_pr_cpu), &tb) ||
	    check_add_overflow(t, tb, &d))
		return -ERANGE;
	d += ST_PR_SRCS * sizeof(struct st_pr_src);	/* the sources' table */
	d = ALIGN(d, 64);
	if (d > size)
		return -ERANGE;
	*table_off = t;
	*data_off = d;
	return 0;
}

/**
 * snaptrace_persist_geometry_ok() - whether a header's geometry fits a region
 * @h: the region's header, as found
 * @size: the region's bytes, as this load maps it
 *
 * The header's size is @size, and its offsets are those of a region of
 * @size for its CPUs. snaptrace_persist_parse() refuses a header that
 * fails this with -ERANGE (armed with another size or layout); a capture
 * refused with -ERANGE whose header passes it has a length (data_bytes)
 * that runs past the region's end. No upstream twin.
 *
 * Context: any.
 * Return: true if the geometry fits.
 */
bool snaptrace_persist_geometry_ok(const struct st_pr_hdr *h, size_t size)
{
	u64 table_off, data_off;

	return h->size == size && h->cap_off == sizeof(*h) &&
	       !snaptrace_persist_geometry(size, h->nr_cpus, &table_off, &data_off) &&
	       h->table_off == table_off && h->data_off == data_off;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_geometry_ok);
