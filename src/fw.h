/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Firmware parsing: where the resource table and the loadable segments lie in
 * a remote processor's ELF image, and the checks on the resource table and
 * its entries. Mirrors drivers/remoteproc/remoteproc_elf_loader.c,
 * rsc_table_for_each_entry() and the checks of rproc_handle_*().
 *
 * None of these functions sleeps or allocates; any context. They read the
 * image and the table only inside the sizes given, and report what is
 * wrong with snaptrace_dev_err() (@dev may be NULL); an image without a
 * resource table is not reported (-ENOENT): whether it boots is its
 * platform's call.
 *
 * Alignment: none required. Every multi-byte field of the image, of the
 * table and of an entry is read with get_unaligned_le*() (the remotes write
 * them little-endian). Entry offsets are checked to be multiples of 4, so if
 * the table itself is 4-byte aligned, so is every entry body passed to a
 * snaptrace_rsc_fn; otherwise the callback must read the body unaligned too.
 *
 * The table must not change between snaptrace_rsc_table_check() and the
 * walk: give snaptrace_rsc_walk() a private copy (as upstream's
 * cached_table), never memory the remote can write.
 */
#ifndef _SNAPTRACE_FW_H
#define _SNAPTRACE_FW_H

#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/unaligned.h>

#include <snaptrace/rsc_table.h>

struct device;

/*
 * How the parsers, and the remotes' code below a command, report a
 * refusal: dev_err(), whose message the command's catch keeps for
 * error_log (src/error_log.c; the fuzzer defines one of its own).
 */
__printf(2, 3) void snaptrace_dev_err(const struct device *dev,
				      const char *fmt, ...);

/* Where .resource_table lies in an image: byte offset and size. */
int snaptrace_elf_find_rsc_table(struct device *dev, const u8 *elf, size_t size,
				 size_t *table_off, size_t *table_sz);
/* ... and its device address, the section's sh_addr. */
int snaptrace_elf_find_loaded_rsc_table(struct device *dev, const u8 *elf,
					size_t size, size_t *table_off,
					size_t *table_sz, u64 *table_da);

/*
 * Called for each PT_LOAD segment with p_memsz > 0: @da is p_paddr, @data
 * points at p_offset in the image, @filesz <= @memsz bytes. A nonzero return
 * stops the walk and is returned by snaptrace_elf_walk_segments().
 */
typedef int (*snaptrace_elf_segment_fn)(void *priv, u64 da, const u8 *data,
					u64 filesz, u64 memsz);
int snaptrace_elf_walk_segments(struct device *dev, const u8 *elf, size_t size,
				snaptrace_elf_segment_fn fn, void *priv);

int snaptrace_rsc_table_check(struct device *dev, const void *table,
			      size_t table_sz);

/*
 * Called for each resource entry in table order: @type is the entry's type
 * (any value, unknown ones included), @rsc its body (after the type word),
 * @offset the byte offset of @rsc in the table and @avail the bytes from
 * @rsc to the end of the table. A nonzero return stops the walk and is
 * returned by snaptrace_rsc_walk().
 */
/*
 * Limits on what firmware may ask for: a table larger than this, or with
 * more entries, is refused before anything is copied or compared (the
 * overlap check is quadratic in the number of entries).
 */
#define SNAPTRACE_RSC_TABLE_MAX		SZ_64K
#define SNAPTRACE_RSC_MAX_ENTRIES	256

typedef int (*snaptrace_rsc_fn)(void *priv, u32 type, void *rsc, int offset,
				int avail);
int snaptrace_rsc_walk(struct device *dev, void *table,
		       size_t table_sz, snaptrace_rsc_fn fn,
				 void *priv);

int snaptrace_rsc_check_carveout(struct device *dev,
				 const struct snaptrace_fw_rsc_carveout *rsc,
				 int offset, int avail);
int snaptrace_rsc_check_devmem(struct device *dev,
			       const struct snaptrace_fw_rsc_devmem *rsc,
			       int offset, int avail);
int snaptrace_rsc_check_trace(struct device *dev,
			      const struct snaptrace_fw_rsc_trace *rsc,
			      int offset, int avail);
int snaptrace_rsc_check_vdev(struct device *dev,
			     const struct snaptrace_fw_rsc_vdev *rsc,
			     int offset, int avail);

int snaptrace_rsc_check_entry(struct device *dev, u32 type, const void *rsc,
			      int offset, int avail);

#endif /* _SNAPTRACE_FW_H */
