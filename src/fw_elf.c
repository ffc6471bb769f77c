// SPDX-License-Identifier: GPL-2.0
/*
 * ELF32/ELF64 little-endian firmware images: where the resource table and
 * the loadable segments lie. Mirrors rproc_elf_sanity_check(), find_table()
 * and rproc_elf_load_segments() (drivers/remoteproc/remoteproc_elf_loader.c),
 * but checks every offset and size it uses against the image first, with
 * overflow-safe arithmetic, and reads every field with get_unaligned_le*().
 *
 * Built into the module and, later, into a user-space fuzzer: only headers
 * that have a user-space stand-in are used.
 */
#include <linux/device.h>
#include <linux/elf.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/types.h>
#include <kunit/visibility.h>

#include "fw.h"

#define ST_RSC_TABLE_NAME ".resource_table"

/* The ELF header fields we use, whatever the class. */
struct st_elf {
	const u8 *data;
	size_t size;
	bool is64;
	u64 phoff;
	u64 shoff;
	u16 phentsize;
	u16 phnum;
	u16 shentsize;
	u16 shnum;
	u16 shstrndx;
};

/* A little-endian field of struct @t at @p, any alignment. */
#define ST_LE16(p, t, f) get_unaligned_le16((const u8 *)(p) + offsetof(struct t, f))
#define ST_LE32(p, t, f) get_unaligned_le32((const u8 *)(p) + offsetof(struct t, f))
#define ST_LE64(p, t, f) get_unaligned_le64((const u8 *)(p) + offsetof(struct t, f))

/* The section header fields we use. */
struct st_shdr {
	u32 name;
	u32 type;
	u64 addr;
	u64 offset;
	u64 size;
};

/* The program header fields we use. */
struct st_phdr {
	u32 type;
	u64 offset;
	u64 paddr;
	u64 filesz;
	u64 memsz;
};

/* Read the ELF header of @e->data (at least the class's header size). */
static void st_read_ehdr(struct st_elf *e)
{
	const u8 *p = e->data;

	if (e->is64) {
		e->phoff = ST_LE64(p, elf64_hdr, e_phoff);
		e->shoff = ST_LE64(p, elf64_hdr, e_shoff);
		e->phentsize = ST_LE16(p, elf64_hdr, e_phentsize);
		e->phnum = ST_LE16(p, elf64_hdr, e_phnum);
		e->shentsize = ST_LE16(p, elf64_hdr, e_shentsize);
		e->shnum = ST_LE16(p, elf64_hdr, e_shnum);
		e->shstrndx = ST_LE16(p, elf64_hdr, e_shstrndx);
	} else {
		e->phoff = ST_LE32(p, elf32_hdr, e_phoff);
		e->shoff = ST_LE32(p, elf32_hdr, e_shoff);
		e->phentsize = ST_LE16(p, elf32_hdr, e_phentsize);
		e->phnum = ST_LE16(p, elf32_hdr, e_phnum);
		e->shentsize = ST_LE16(p, elf32_hdr, e_shentsize);
		e->shnum = ST_LE16(p, elf32_hdr, e_shnum);
		e->shstrndx = ST_LE16(p, elf32_hdr, e_shstrndx);
	}
}

/* Read section header @i; st_elf_parse() checked that it lies in the image. */
static void st_read_shdr(const struct st_elf *e, unsigned int i,
			 struct st_shdr *sh)
{
	const u8 *p = e->data + e->shoff + (size_t)i * e->shentsize;

	if (e->is64) {
		sh->name = ST_LE32(p, elf64_shdr, sh_name);
		sh->type = ST_LE32(p, elf64_shdr, sh_type);
		sh->addr = ST_LE64(p, elf64_shdr, sh_addr);
		sh->offset = ST_LE64(p, elf64_shdr, sh_offset);
		sh->size = ST_LE64(p, elf64_shdr, sh_size);
	} else {
		sh->name = ST_LE32(p, elf32_shdr, sh_name);
		sh->type = ST_LE32(p, elf32_shdr, sh_type);
		sh->addr = ST_LE32(p, elf32_shdr, sh_addr);
		sh->offset = ST_LE32(p, elf32_shdr, sh_offset);
		sh->size = ST_LE32(p, elf32_shdr, sh_size);
	}
}

/* Read program header @i; st_elf_parse() checked that it lies in the image. */
static void st_read_phdr(const struct st_elf *e, unsigned int i,
			 struct st_phdr *ph)
{
	const u8 *p = e->data + e->phoff + (size_t)i * e->phentsize;

	if (e->is64) {
		ph->type = ST_LE32(p, elf64_phdr, p_type);
		ph->offset = ST_LE64(p, elf64_phdr, p_offset);
		ph->paddr = ST_LE64(p, elf64_phdr, p_paddr);
		ph->filesz = ST_LE64(p, elf64_phdr, p_filesz);
		ph->memsz = ST_LE64(p, elf64_phdr, p_memsz);
	} else {
		ph->type = ST_LE32(p, elf32_phdr, p_type);
		ph->offset = ST_LE32(p, elf32_phdr, p_offset);
		ph->paddr = ST_LE32(p, elf32_phdr, p_paddr);
		ph->filesz = ST_LE32(p, elf32_phdr, p_filesz);
		ph->memsz = ST_LE32(p, elf32_phdr, p_memsz);
	}
}

/* Whether [@off, @off + @len) lies inside an image of @size bytes. */
static bool st_in_file(u64 off, u64 len, size_t size)
{
	u64 end;

	return !check_add_overflow(off, len, &end) && end <= size;
}

/*
 * Check that a table of @num entries of @entsize bytes at @off lies inside
 * the image, and that an entry holds at least @min bytes. Nothing to check
 * when @num is 0.
 */
static int st_check_hdr_table(struct device *dev, const struct st_elf *e,
			      const char *what, u64 off, u16 num, u16 entsize,
			      size_t min)
{
	u64 len;

	if (!num)
		return 0;
	if (entsize < min) {
		snaptrace_dev_err(dev, "%s header entries are %u bytes, need %zu\n",
				  what, entsize, min);
		return -EINVAL;
	}
	if (check_mul_overflow((u64)num, (u64)entsize, &len) ||
	    !st_in_file(off, len, e->size)) {
		snaptrace_dev_err(dev, "%s header table (offset 0x%llx, %u x %u bytes) is past the end of the %zu-byte image\n",
				  what, off, num, entsize, e->size);
		return -EINVAL;
	}
	return 0;
}

/*
 * Check the ELF header, and that the section and program header tables lie
 * inside the image; fill @e. Mirrors rproc_elf_sanity_check(), without its
 * "no loadable segments" error (the caller judges that).
 */
static int st_elf_parse(struct device *dev, const u8 *elf, size_t size,
			struct st_elf *e)
{
	int ret;

	if (!elf || size < sizeof(struct elf32_hdr)) {
		snaptrace_dev_err(dev, "image is %zu bytes, smaller than an ELF header\n",
				  size);
		return -EINVAL;
	}
	if (memcmp(elf, ELFMAG, SELFMAG)) {
		snaptrace_dev_err(dev, "image is not ELF (bad magic)\n");
		return -EINVAL;
	}
	switch (elf[EI_CLASS]) {
	case ELFCLASS32:
		e->is64 = false;
		break;
	case ELFCLASS64:
		e->is64 = true;
		if (size < sizeof(struct elf64_hdr)) {
			snaptrace_dev_err(dev, "image is %zu bytes, smaller than an ELF64 header\n",
					  size);
			return -EINVAL;
		}
		break;
	default:
		snaptrace_dev_err(dev, "unsupported ELF class %u\n", elf[EI_CLASS]);
		return -EINVAL;
	}
	if (elf[EI_DATA] != ELFDATA2LSB) {
		snaptrace_dev_err(dev, "unsupported ELF data encoding %u: need little-endian\n",
				  elf[EI_DATA]);
		return -EINVAL;
	}

	e->data = elf;
	e->size = size;
	st_read_ehdr(e);

	ret = st_check_hdr_table(dev, e, "section", e->shoff, e->shnum,
				 e->shentsize,
				 e->is64 ? sizeof(struct elf64_shdr) :
					   sizeof(struct elf32_shdr));
	if (ret)
		return ret;
	ret = st_check_hdr_table(dev, e, "program", e->phoff, e->phnum,
				 e->phentsize,
				 e->is64 ? sizeof(struct elf64_phdr) :
					   sizeof(struct elf32_phdr));
	if (ret)
		return ret;

	/* SHN_UNDEF: no names, so no .resource_table; checked by the caller. */
	if (e->shnum && e->shstrndx >= e->shnum) {
		snaptrace_dev_err(dev, "bogus e_shstrndx %u: %u sections\n",
				  e->shstrndx, e->shnum);
		return -EINVAL;
	}
	return 0;
}

static int st_find_rsc_table(struct device *dev, const u8 *elf, size_t size,
			     struct st_shdr *table);

/**
 * snaptrace_elf_find_rsc_table() - locate the resource table in an ELF image
 * @dev: device to report errors against, may be NULL
 * @elf: the ELF32 or ELF64 little-endian image, any alignment
 * @size: size of @elf in bytes
 * @table_off: set to the table's byte offset in @elf on success
 * @table_sz: set to the table's size in bytes on success
 *
 * Finds the first section named exactly ".resource_table", as find_table()
 * in remoteproc_elf_loader.c does, after checking the ELF header, the section
 * and program header tables and the section name string table against @size.
 * The table found lies inside the image and holds at least a &struct
 * snaptrace_rsc_table; its contents are snaptrace_rsc_table_check()'s
 * business. The machine is not checked.
 *
 * Context: any; never sleeps, does not allocate.
 * Return: 0 with *@table_off and *@table_sz set; -ENOENT, without a message
 * (as find_table(): some platforms boot such an image), if the image has no
 * section of that name (or no section names); -EINVAL if the image is
 * malformed or the section is empty, past the end of the image, has no file
 * contents or is smaller than the table header.
 */
int snaptrace_elf_find_rsc_table(struct device *dev, const u8 *elf, size_t size,
				 size_t *table_off, size_t *table_sz)
{
	u64 table_da;

	return snaptrace_elf_find_loaded_rsc_table(dev, elf, size, table_off,
						   table_sz, &table_da);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_elf_find_rsc_table);

/**
 * snaptrace_elf_find_loaded_rsc_table() - the resource table and its address
 * @dev: device to report errors against, may be NULL
 * @elf: the ELF32 or ELF64 little-endian image, any alignment
 * @size: size of @elf in bytes
 * @table_off: set to the table's byte offset in @elf on success
 * @table_sz: set to the table's size in bytes on success
 * @table_da: set to the section's sh_addr on success: where a remote that
 *	loaded this image itself has the table
 *
 * As snaptrace_elf_find_rsc_table(), and gives the device address of the
 * loaded table as rproc_elf_find_loaded_rsc_table() takes it: the
 * section's sh_addr (its VMA), unchecked (the caller checks it against the
 * memory it can reach).
 *
 * Context: any; never sleeps, does not allocate.
 * Return: as snaptrace_elf_find_rsc_table().
 */
int snaptrace_elf_find_loaded_rsc_table(struct device *dev, const u8 *elf,
					size_t size, size_t *table_off,
					size_t *table_sz, u64 *table_da)
{
	struct st_shdr sh;
	int ret;

	ret = st_find_rsc_table(dev, elf, size, &sh);
	if (ret)
		return ret;
	*table_off = sh.offset;
	*table_sz = sh.size;
	*table_da = sh.addr;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_elf_find_loaded_rsc_table);

/* The .resource_table section's header, checked as documented above. */
static int st_find_rsc_table(struct device *dev, const u8 *elf, size_t size,
			     struct st_shdr *table)
{
	struct st_shdr strtab_sh, sh;
	const char *strtab;
	struct st_elf e;
	unsigned int i;
	int ret;

	ret = st_elf_parse(dev, elf, size, &e);
	if (ret)
		return ret;
	/* No message for no table: whether that is an error is the caller's call. */
	if (!e.shnum || e.shstrndx == SHN_UNDEF)
		return -ENOENT;

	st_read_shdr(&e, e.shstrndx, &strtab_sh);
	if (!st_in_file(strtab_sh.offset, strtab_sh.size, size)) {
		snaptrace_dev_err(dev, "section name table (offset 0x%llx, 0x%llx bytes) is past the end of the %zu-byte image\n",
				  strtab_sh.offset, strtab_sh.size, size);
		return -EINVAL;
	}
	strtab = (const char *)elf + strtab_sh.offset;
	if (!strtab_sh.size || strtab[strtab_sh.size - 1] != '\0') {
		snaptrace_dev_err(dev, "section name table is not NUL-terminated\n");
		return -EINVAL;
	}

	for (i = 0; i < e.shnum; i++) {
		st_read_shdr(&e, i, &sh);
		if (sh.name >= strtab_sh.size) {
			snaptrace_dev_err(dev, "section %u: sh_name 0x%x past the end of the 0x%llx-byte name table\n",
					  i, sh.name, strtab_sh.size);
			return -EINVAL;
		}
		if (strcmp(strtab + sh.name, ST_RSC_TABLE_NAME))
			continue;

		if (sh.size < sizeof(struct snaptrace_rsc_table)) {
			snaptrace_dev_err(dev, "%s is %llu bytes, smaller than the %zu-byte table header\n",
					  ST_RSC_TABLE_NAME, sh.size,
					  sizeof(struct snaptrace_rsc_table));
			return -EINVAL;
		}
		if (sh.type == SHT_NOBITS) {
			snaptrace_dev_err(dev, "%s has no contents in the image (SHT_NOBITS)\n",
					  ST_RSC_TABLE_NAME);
			return -EINVAL;
		}
		if (!st_in_file(sh.offset, sh.size, size)) {
			snaptrace_dev_err(dev, "%s (offset 0x%llx, 0x%llx bytes) is past the end of the %zu-byte image\n",
					  ST_RSC_TABLE_NAME, sh.offset, sh.size, size);
			return -EINVAL;
		}
		*table = sh;
		return 0;
	}

	return -ENOENT;
}

/**
 * snaptrace_elf_walk_segments() - walk the loadable segments of an image
 * @dev: device to report errors against, may be NULL
 * @elf: the ELF32 or ELF64 little-endian image, any alignment
 * @size: size of @elf in bytes
 * @fn: called for each PT_LOAD segment with p_memsz > 0, in table order
 * @priv: passed to @fn
 *
 * Mirrors rproc_elf_load_segments() without the copy: @fn gets the device
 * address p_paddr (as upstream uses), the segment's p_filesz bytes at
 * p_offset in @elf, and p_memsz (bytes; the rest is to be zeroed). The ELF
 * header and both header tables are checked first, as for
 * snaptrace_elf_find_rsc_table(); each segment is checked (p_filesz <=
 * p_memsz, contents inside the image) just before its call, so @fn may have
 * run for earlier segments when -EINVAL is returned.
 *
 * Context: any; never sleeps, does not allocate (@fn may, if its caller can).
 * Return: 0 after the last segment, the first nonzero value @fn returns, or
 * -EINVAL if the image is malformed.
 */
int snaptrace_elf_walk_segments(struct device *dev, const u8 *elf, size_t size,
				snaptrace_elf_segment_fn fn, void *priv)
{
	struct st_elf e;
	unsigned int i;
	int ret;

	ret = st_elf_parse(dev, elf, size, &e);
	if (ret)
		return ret;

	for (i = 0; i < e.phnum; i++) {
		struct st_phdr ph;

		st_read_phdr(&e, i, &ph);
		if (ph.type != PT_LOAD || !ph.memsz)
			continue;
		if (ph.filesz > ph.memsz) {
			snaptrace_dev_err(dev, "segment %u: p_filesz 0x%llx > p_memsz 0x%llx\n",
					  i, ph.filesz, ph.memsz);
			return -EINVAL;
		}
		if (!st_in_file(ph.offset, ph.filesz, size)) {
			snaptrace_dev_err(dev, "segment %u (offset 0x%llx, 0x%llx bytes) is past the end of the %zu-byte image\n",
					  i, ph.offset, ph.filesz, size);
			return -EINVAL;
		}
		ret = fn(priv, ph.paddr, elf + ph.offset, ph.filesz, ph.memsz);
		if (ret)
			return ret;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_elf_walk_segments);
