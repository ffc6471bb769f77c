// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the firmware parsers: the same src/fw_elf.c and
 * src/fw_rsc.c as the module, built in user space against shim/. Each
 * input is an image: find its resource table and walk it with the
 * per-type checks, walk its segments reading every byte they name, and
 * also walk the input itself as a table. Every buffer is a heap copy of
 * exactly the input's size, so ASan sees any over-read.
 */
#include <stdlib.h>

#include "fw.h"

/*
 * The module's snaptrace_dev_err() (src/error_log.c): its format is
 * checked by the compiler (fw.h's __printf), the message dropped, as the
 * shim's dev_err().
 */
void snaptrace_dev_err(const struct device *dev, const char *fmt, ...)
{
}

/* Every byte a segment names is read: a global sink keeps the loop. */
static u8 sink;

static int seg(void *priv, u64 da, const u8 *data, u64 filesz, u64 memsz)
{
	u64 i;

	for (i = 0; i < filesz; i++)
		sink ^= data[i];
	return 0;
}

static int entry(void *priv, u32 type, void *rsc, int offset, int avail)
{
	return snaptrace_rsc_check_entry(NULL, type, rsc, offset, avail);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u8 *image = malloc(size ? size : 1), *table;
	size_t off, sz;

	memcpy(image, data, size);
	if (!snaptrace_elf_find_rsc_table(NULL, image, size, &off, &sz)) {
		table = malloc(sz);
		memcpy(table, image + off, sz);
		snaptrace_rsc_walk(NULL, table, sz, entry, NULL);
		free(table);
	}
	snaptrace_elf_walk_segments(NULL, image, size, seg, NULL);
	snaptrace_rsc_walk(NULL, image, size, entry, NULL);
	free(image);
	return 0;
}
