// SPDX-License-Identifier: GPL-2.0
/*
 * Resource table checks and walker. Mirrors find_table()'s header checks
 * (remoteproc_elf_loader.c), the hardened rsc_table_for_each_entry()
 * (include/linux/rsc_table.h, Debian's 6.12) and the checks at the top of
 * rproc_handle_carveout/devmem/trace/vdev() (remoteproc_core.c). Beyond
 * upstream, the whole table is checked before the first entry is handed out:
 * offsets aligned and past the offset array, known entries inside the table
 * and not overlapping each other.
 *
 * Built into the module and, later, into a user-space fuzzer: only headers
 * that have a user-space stand-in are used.
 */
#include <linux/device.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/types.h>
#include <kunit/visibility.h>

#include "fw.h"

#define ST_TBL_HDR sizeof(struct snaptrace_rsc_table)
#define ST_RSC_HDR sizeof(struct snaptrace_fw_rsc_hdr)

/* The little-endian u32 at byte @off of @table. */
static u32 st_rd32(const void *table, size_t off)
{
	return get_unaligned_le32((const u8 *)table + off);
}

/* Byte offset, in the table, of entry @i's offset word. */
static size_t st_offset_word(u32 i)
{
	return offsetof(struct snaptrace_rsc_table, offset) + (size_t)i * sizeof(u32);
}

/*
 * Where entry @i of a table whose header and offset array end at @hdr_end
 * lies: [*start, *end), its type word included. Known types count their
 * whole body (a vdev's vrings and config space too), others the type word
 * only. With @report, says what is wrong; otherwise (entries already
 * checked) stays quiet.
 */
static int st_entry_extent(struct device *dev, const void *table,
			   size_t table_sz, size_t hdr_end, u32 i, bool report,
			   size_t *start, size_t *end)
{
	u32 off = st_rd32(table, st_offset_word(i));
	size_t body, avail, len, vrings;
	u32 type;

	if (off % sizeof(u32)) {
		if (report)
			snaptrace_dev_err(dev, "rsc table entry %u: offset 0x%x is not 4-byte aligned\n",
					  i, off);
		return -EINVAL;
	}
	if (off < hdr_end) {
		if (report)
			snaptrace_dev_err(dev, "rsc table entry %u: offset 0x%x is inside the table header, which ends at 0x%zx\n",
					  i, off, hdr_end);
		return -EINVAL;
	}
	if (check_add_overflow((size_t)off, ST_RSC_HDR, &body) || body > table_sz) {
		if (report)
			snaptrace_dev_err(dev, "rsc table entry %u: offset 0x%x leaves no room for its type in the %zu-byte table\n",
					  i, off, table_sz);
		return -EINVAL;
	}

	type = st_rd32(table, off);
	avail = table_sz - body;
	switch (type) {
	case SNAPTRACE_RSC_CARVEOUT:
		len = sizeof(struct snaptrace_fw_rsc_carveout);
		break;
	case SNAPTRACE_RSC_DEVMEM:
		len = sizeof(struct snaptrace_fw_rsc_devmem);
		break;
	case SNAPTRACE_RSC_TRACE:
		len = sizeof(struct snaptrace_fw_rsc_trace);
		break;
	case SNAPTRACE_RSC_VDEV:
		len = sizeof(struct snaptrace_fw_rsc_vdev);
		if (len > avail)
			break;	/* the counts below are not in the table */
		vrings = ((const u8 *)table)[body +
			offsetof(struct snaptrace_fw_rsc_vdev, num_of_vrings)];
		if (check_mul_overflow(vrings,
				       sizeof(struct snaptrace_fw_rsc_vdev_vring),
				       &vrings) ||
		    check_add_overflow(len, vrings, &len) ||
		    check_add_overflow(len, (size_t)st_rd32(table, body +
				offsetof(struct snaptrace_fw_rsc_vdev, config_len)),
				       &len))
			len = SIZE_MAX;
		break;
	default:
		len = 0;	/* the caller warns and skips it */
		break;
	}
	if (len > avail) {
		if (report)
			snaptrace_dev_err(dev, "rsc table entry %u (type %u) at offset 0x%x is truncated: needs %zu bytes, %zu left in the table\n",
					  i, type, off, len, avail);
		return -EINVAL;
	}

	*start = off;
	*end = body + len;
	return 0;
}

/**
 * snaptrace_rsc_table_check() - check a resource table before walking it
 * @dev: device to report errors against, may be NULL
 * @table: the table (a &struct snaptrace_rsc_table), any alignment
 * @table_sz: size of @table in bytes, at most INT_MAX
 *
 * The header: @table_sz holds it, version 1, reserved words zero, the @num
 * entry offsets fit in the table (as find_table() checks). Each offset: a
 * multiple of 4, past the offset array, leaving room for the entry's type
 * word. Each entry of a known type (carveout, devmem, trace, vdev with its
 * vrings and config space) lies inside the table, and no two entries overlap
 * (unknown types occupy their type word). Fields inside the entries
 * (reserved words, trace length...) are the snaptrace_rsc_check_*()
 * functions' business. Comparing pairs costs O(num^2); num is bounded by
 * the table size.
 *
 * Context: any; never sleeps, does not allocate.
 * Return: 0 if the table is sound; -EINVAL, with a snaptrace_dev_err() naming the
 * entry's index and offset where one is at fault, otherwise.
 */
int snaptrace_rsc_table_check(struct device *dev, const void *table,
			      size_t table_sz)
{
	size_t hdr_end, start, end, ostart, oend;
	u32 ver, num, i, j;
	int ret;

	if (!table || table_sz < ST_TBL_HDR) {
		snaptrace_dev_err(dev, "rsc table is %zu bytes, smaller than its %zu-byte header\n",
				  table_sz, ST_TBL_HDR);
		return -EINVAL;
	}
	if (table_sz > SNAPTRACE_RSC_TABLE_MAX) {
		snaptrace_dev_err(dev, "rsc table is %zu bytes, more than %u\n", table_sz,
				  SNAPTRACE_RSC_TABLE_MAX);
		return -EINVAL;
	}
	ver = st_rd32(table, offsetof(struct snaptrace_rsc_table, ver));
	if (ver != 1) {
		snaptrace_dev_err(dev, "unsupported rsc table version %u\n", ver);
		return -EINVAL;
	}
	if (st_rd32(table, offsetof(struct snaptrace_rsc_table, reserved)) ||
	    st_rd32(table, offsetof(struct snaptrace_rsc_table, reserved) + 4)) {
		snaptrace_dev_err(dev, "rsc table has non zero reserved bytes\n");
		return -EINVAL;
	}
	num = st_rd32(table, offsetof(struct snaptrace_rsc_table, num));
	if (num > SNAPTRACE_RSC_MAX_ENTRIES) {
		snaptrace_dev_err(dev, "rsc table has %u entries, more than %u\n", num,
				  SNAPTRACE_RSC_MAX_ENTRIES);
		return -EINVAL;
	}
	if (check_mul_overflow((size_t)num, sizeof(u32), &hdr_end) ||
	    check_add_overflow(hdr_end, ST_TBL_HDR, &hdr_end) ||
	    hdr_end > table_sz) {
		snaptrace_dev_err(dev, "rsc table of %zu bytes cannot hold %u entry offsets\n",
				  table_sz, num);
		return -EINVAL;
	}

	for (i = 0; i < num; i++) {
		ret = st_entry_extent(dev, table, table_sz, hdr_end, i, true,
				      &start, &end);
		if (ret)
			return ret;
		for (j = 0; j < i; j++) {
			/* Entry j passed these checks already: cannot fail. */
			if (st_entry_extent(dev, table, table_sz, hdr_end, j,
					    false, &ostart, &oend))
				return -EINVAL;
			if (start < oend && ostart < end) {
				snaptrace_dev_err(dev, "rsc table entry %u at offset 0x%zx overlaps entry %u at offset 0x%zx\n",
						  i, start, j, ostart);
				return -EINVAL;
			}
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rsc_table_check);

/**
 * snaptrace_rsc_walk() - walk the entries of a resource table
 * @dev: device to report errors against, may be NULL
 * @table: the table, a private copy (see fw.h), any alignment
 * @table_sz: size of @table in bytes
 * @fn: called for each entry, in the order of the offset array
 * @priv: passed to @fn
 *
 * Runs snaptrace_rsc_table_check(), then calls @fn with the entry's type
 * (unknown ones included: the caller warns and skips them), its body (after
 * the type word), the body's byte offset in the table and the bytes from the
 * body to the end of the table, as rsc_table_for_each_entry() does for
 * rproc_handle_resources(). @fn may write into its entry's body; each offset
 * is checked again before use in case it wrote elsewhere.
 *
 * Context: any; never sleeps, does not allocate (@fn may, if its caller can).
 * Return: 0 after the last entry, the first nonzero value @fn returns, or
 * -EINVAL if the table is malformed.
 */
int snaptrace_rsc_walk(struct device *dev, void *table,
		       size_t table_sz, snaptrace_rsc_fn fn,
				 void *priv)
{
	size_t hdr_end;
	u32 num, i;
	int ret;

	ret = snaptrace_rsc_table_check(dev, table, table_sz);
	if (ret)
		return ret;

	num = st_rd32(table, offsetof(struct snaptrace_rsc_table, num));
	hdr_end = st_offset_word(num);
	for (i = 0; i < num; i++) {
		u32 off = st_rd32(table, st_offset_word(i));

		if (off < hdr_end || off > table_sz - ST_RSC_HDR) {
			snaptrace_dev_err(dev, "rsc table entry %u: offset 0x%x changed during the walk\n",
					  i, off);
			return -EINVAL;
		}
		ret = fn(priv, st_rd32(table, off), (u8 *)table + off + ST_RSC_HDR,
			 off + ST_RSC_HDR, table_sz - off - ST_RSC_HDR);
		if (ret)
			return ret;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rsc_walk);

/* Length of a name field up to its first NUL: for "%*pE". */
static int st_name_len(const u8 *name)
{
	return strnlen((const char *)name, SNAPTRACE_RSC_NAME_LEN);
}

/* The checks carveout and devmem entries share: same layout. */
static int st_check_mem(struct device *dev, const char *kind, size_t rsc_sz,
			const void *reserved, const u8 *name, int offset,
			int avail)
{
	if (avail < 0 || rsc_sz > (size_t)avail) {
		snaptrace_dev_err(dev, "%s rsc at offset %d is truncated: %zu bytes, %d available\n",
				  kind, offset, rsc_sz, avail);
		return -EINVAL;
	}
	if (get_unaligned_le32(reserved)) {
		snaptrace_dev_err(dev, "%s rsc \"%*pE\" at offset %d has non zero reserved bytes\n",
				  kind, st_name_len(name), name, offset);
		return -EINVAL;
	}
	return 0;
}

/**
 * snaptrace_rsc_check_carveout() - check a carveout entry
 * @dev: device to report errors against, may be NULL
 * @rsc: the entry's body, any alignment
 * @offset: byte offset of @rsc in the table, for messages
 * @avail: bytes from @rsc to the end of the table
 *
 * The checks at the top of rproc_handle_carveout(): the entry fits in
 * @avail, its reserved word is zero. Errors name the entry's offset and,
 * once it is known to be inside the table, its name (escaped, up to its
 * first NUL or 32 bytes).
 *
 * Context: any; never sleeps, does not allocate.
 * Return: 0, or -EINVAL if the entry is truncated or its reserved word set.
 */
int snaptrace_rsc_check_carveout(struct device *dev,
				 const struct snaptrace_fw_rsc_carveout *rsc,
				 int offset, int avail)
{
	return st_check_mem(dev, "carveout", sizeof(*rsc), &rsc->reserved,
			    rsc->name, offset, avail);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rsc_check_carveout);

/**
 * snaptrace_rsc_check_devmem() - check a devmem entry
 * @dev: device to report errors against, may be NULL
 * @rsc: the entry's body, any alignment
 * @offset: byte offset of @rsc in the table, for messages
 * @avail: bytes from @rsc to the end of the table
 *
 * The checks at the top of rproc_handle_devmem(): the entry fits in @avail,
 * its reserved word is zero. Errors name the entry's offset and, once it is
 * known to be inside the table, its name (escaped, up to its first NUL or 32
 * bytes).
 *
 * Context: any; never sleeps, does not allocate.
 * Return: 0, or -EINVAL if the entry is truncated or its reserved word set.
 */
int snaptrace_rsc_check_devmem(struct device *dev,
			       const struct snaptrace_fw_rsc_devmem *rsc,
			       int offset, int avail)
{
	return st_check_mem(dev, "devmem", sizeof(*rsc), &rsc->reserved,
			    rsc->name, offset, avail);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rsc_check_devmem);

/**
 * snaptrace_rsc_check_trace() - check a trace entry
 * @dev: device to report errors against, may be NULL
 * @rsc: the entry's body, any alignment
 * @offset: byte offset of @rsc in the table, for messages
 * @avail: bytes from @rsc to the end of the table
 *
 * The checks at the top of rproc_handle_trace(): the entry fits in @avail,
 * its reserved word is zero; and, stricter than upstream, the buffer is not
 * empty and [da, da + len) does not wrap past 2^32 (da + len == 2^32 is
 * refused too: the end does not fit in 32 bits). Whether the buffer is
 * mapped is the caller's check. Errors name the entry's offset and, once it
 * is known to be inside the table, its name (escaped, up to its first NUL or
 * 32 bytes).
 *
 * Context: any; never sleeps, does not allocate.
 * Return: 0, or -EINVAL if the entry is truncated, its reserved word set,
 * its length 0 or its end past 32 bits.
 */
int snaptrace_rsc_check_trace(struct device *dev,
			      const struct snaptrace_fw_rsc_trace *rsc,
			      int offset, int avail)
{
	u32 da, len, end;

	if (avail < 0 || sizeof(*rsc) > (size_t)avail) {
		snaptrace_dev_err(dev, "trace rsc at offset %d is truncated: %zu bytes, %d available\n",
				  offset, sizeof(*rsc), avail);
		return -EINVAL;
	}
	if (get_unaligned_le32(&rsc->reserved)) {
		snaptrace_dev_err(dev, "trace rsc \"%*pE\" at offset %d has non zero reserved bytes\n",
				  st_name_len(rsc->name), rsc->name, offset);
		return -EINVAL;
	}
	da = get_unaligned_le32(&rsc->da);
	len = get_unaligned_le32(&rsc->len);
	if (!len) {
		snaptrace_dev_err(dev, "trace rsc \"%*pE\" at offset %d has length 0\n",
				  st_name_len(rsc->name), rsc->name, offset);
		return -EINVAL;
	}
	if (check_add_overflow(da, len, &end)) {
		snaptrace_dev_err(dev, "trace rsc \"%*pE\" at offset %d: da 0x%x + len 0x%x overflows 32 bits\n",
				  st_name_len(rsc->name), rsc->name, offset, da, len);
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rsc_check_trace);

/**
 * snaptrace_rsc_check_vdev() - check a vdev entry
 * @dev: device to report errors against, may be NULL
 * @rsc: the entry's body, any alignment
 * @offset: byte offset of @rsc in the table, for messages
 * @avail: bytes from @rsc to the end of the table
 *
 * The checks at the top of rproc_handle_vdev(): the entry, its
 * num_of_vrings vrings and config_len bytes of config space fit in @avail
 * (counted overflow-safe, and the counts read only once the fixed part is
 * known to fit), its reserved bytes are zero. How many vrings the caller
 * supports is its own check. Errors name the entry's offset and virtio id.
 *
 * Context: any; never sleeps, does not allocate.
 * Return: 0, or -EINVAL if the entry is truncated or its reserved bytes set.
 */
int snaptrace_rsc_check_vdev(struct device *dev,
			     const struct snaptrace_fw_rsc_vdev *rsc,
			     int offset, int avail)
{
	size_t len = sizeof(*rsc), vrings;
	u32 config_len;

	if (avail < 0 || len > (size_t)avail) {
		snaptrace_dev_err(dev, "vdev rsc at offset %d is truncated: %zu bytes, %d available\n",
				  offset, len, avail);
		return -EINVAL;
	}
	config_len = get_unaligned_le32(&rsc->config_len);
	if (check_mul_overflow((size_t)rsc->num_of_vrings, sizeof(rsc->vring[0]),
			       &vrings) ||
	    check_add_overflow(len, vrings, &len) ||
	    check_add_overflow(len, (size_t)config_len, &len) ||
	    len > (size_t)avail) {
		snaptrace_dev_err(dev, "vdev rsc (id %u) at offset %d is truncated: %u vrings and %u config bytes, %d bytes available\n",
				  get_unaligned_le32(&rsc->id), offset, rsc->num_of_vrings,
				  config_len, avail);
		return -EINVAL;
	}
	if (rsc->reserved[0] || rsc->reserved[1]) {
		snaptrace_dev_err(dev, "vdev rsc (id %u) at offset %d has non zero reserved bytes\n",
				  get_unaligned_le32(&rsc->id), offset);
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rsc_check_vdev);

/**
 * snaptrace_rsc_check_entry() - the checks of an entry's type
 * @dev: for error messages (may be NULL)
 * @type: the entry's type
 * @rsc: the entry's body
 * @offset: its offset in the table, for messages
 * @avail: bytes from @rsc to the end of the table
 *
 * Dispatches to snaptrace_rsc_check_carveout(), _devmem(), _trace() or
 * _vdev(); other types pass (a handler warns about and skips them). For
 * callers that check a whole table without handling it.
 *
 * Context: any; never sleeps, allocates nothing.
 * Return: 0, or -EINVAL from the type's check.
 */
int snaptrace_rsc_check_entry(struct device *dev, u32 type, const void *rsc,
			      int offset, int avail)
{
	switch (type) {
	case SNAPTRACE_RSC_CARVEOUT:
		return snaptrace_rsc_check_carveout(dev, rsc, offset, avail);
	case SNAPTRACE_RSC_DEVMEM:
		return snaptrace_rsc_check_devmem(dev, rsc, offset, avail);
	case SNAPTRACE_RSC_TRACE:
		return snaptrace_rsc_check_trace(dev, rsc, offset, avail);
	case SNAPTRACE_RSC_VDEV:
		return snaptrace_rsc_check_vdev(dev, rsc, offset, avail);
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rsc_check_entry);
