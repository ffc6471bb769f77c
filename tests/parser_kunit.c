// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the firmware parser (src/fw_elf.c, src/fw_rsc.c): ELF32
 * and ELF64 images and resource tables built in memory, each bad case
 * corrupting one field, and the real firmware images of
 * /work/shared/fixtures/firmware loaded with request_firmware().
 *
 * Every image, table and entry is handed to the parser in a buffer of
 * exactly its size, so KASAN reports any read past it.
 */
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/firmware.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/device.h>
#include <kunit/resource.h>
#include <kunit/test.h>

#include <snaptrace/rsc_table.h>
#include "../src/fw.h"

/* ------------------------------------------------------------------------
 * The resource table every built image carries: five entries, in order
 * trace, carveout, devmem, vdev (2 vrings, 8 config bytes), vendor type 200.
 */
#define T_NUM		5
#define T_HDR_END	(16 + 4 * T_NUM)		/* 36 */
#define T_TRACE		T_HDR_END			/* 36, 48 bytes */
#define T_CARVEOUT	(T_TRACE + 4 + 44)		/* 84, 56 bytes */
#define T_DEVMEM	(T_CARVEOUT + 4 + 52)		/* 140, 56 bytes */
#define T_VDEV		(T_DEVMEM + 4 + 52)		/* 196, 76 bytes */
#define T_VDEV_BODY	(24 + 2 * 20 + 8)
#define T_VENDOR	(T_VDEV + 4 + T_VDEV_BODY)	/* 272, 12 bytes */
#define T_VENDOR_TYPE	200
#define T_SZ		(T_VENDOR + 4 + 8)		/* 284 */
#define T_BUF		(T_SZ + 64)	/* room for cases that grow the table */

static const u32 t_offsets[T_NUM] = {
	T_TRACE, T_CARVEOUT, T_DEVMEM, T_VDEV, T_VENDOR
};

static const u32 t_types[T_NUM] = {
	SNAPTRACE_RSC_TRACE, SNAPTRACE_RSC_CARVEOUT, SNAPTRACE_RSC_DEVMEM,
	SNAPTRACE_RSC_VDEV, T_VENDOR_TYPE
};

static void p32(u8 *base, size_t off, u32 v)
{
	put_unaligned_le32(v, base + off);
}

static u32 g32(const u8 *base, size_t off)
{
	return get_unaligned_le32(base + off);
}

#define TRACE_F(f)	offsetof(struct snaptrace_fw_rsc_trace, f)
#define CARVE_F(f)	offsetof(struct snaptrace_fw_rsc_carveout, f)
#define DEVMEM_F(f)	offsetof(struct snaptrace_fw_rsc_devmem, f)
#define VDEV_F(f)	offsetof(struct snaptrace_fw_rsc_vdev, f)

/* Fill @t (T_BUF bytes, zeroed) with the good table. */
static void build_table(u8 *t)
{
	u8 *b;
	int i;

	p32(t, 0, 1);
	p32(t, 4, T_NUM);
	for (i = 0; i < T_NUM; i++) {
		p32(t, 16 + 4 * i, t_offsets[i]);
		p32(t, t_offsets[i], t_types[i]);
	}

	b = t + T_TRACE + 4;
	p32(b, TRACE_F(da), 0x1000);
	p32(b, TRACE_F(len), 0x400);
	strscpy(b + TRACE_F(name), "snaptrace_log", SNAPTRACE_RSC_NAME_LEN);

	b = t + T_CARVEOUT + 4;
	p32(b, CARVE_F(da), 0x100000);
	p32(b, CARVE_F(pa), SNAPTRACE_FW_RSC_ADDR_ANY);
	p32(b, CARVE_F(len), 0x10000);
	strscpy(b + CARVE_F(name), "vdev0buffer", SNAPTRACE_RSC_NAME_LEN);

	b = t + T_DEVMEM + 4;
	p32(b, DEVMEM_F(da), 0x40000000);
	p32(b, DEVMEM_F(pa), 0x40000000);
	p32(b, DEVMEM_F(len), 0x1000);
	strscpy(b + DEVMEM_F(name), "uart", SNAPTRACE_RSC_NAME_LEN);

	b = t + T_VDEV + 4;
	p32(b, VDEV_F(id), 7);
	p32(b, VDEV_F(dfeatures), 1);
	p32(b, VDEV_F(config_len), 8);
	b[VDEV_F(num_of_vrings)] = 2;
	for (i = 0; i < 2; i++) {
		u8 *v = b + VDEV_F(vring) + 20 * i;

		p32(v, 0, SNAPTRACE_FW_RSC_ADDR_ANY);
		p32(v, 4, 0x10);
		p32(v, 8, 8);
		p32(v, 12, i);
	}
	/* Config space: looks like a vendor entry, for the overlap case. */
	p32(b, VDEV_F(vring) + 40, T_VENDOR_TYPE);
	p32(b, VDEV_F(vring) + 44, 0xc0ffee);

	p32(t, T_VENDOR + 4, 0xdeadbeef);
	p32(t, T_VENDOR + 8, 0x12345678);
}

/* ------------------------------------------------------------------------
 * The ELF image: header, 5 program headers at 64, a segment's 32 bytes at
 * 512, the table at 576, the section names at 896, 6 section headers at 1024
 * (the end of the file): NULL, .text, .resource_tablex, .resource_tabl,
 * .resource_table, .shstrtab.
 */
#define IMG_PH_OFF	64
#define IMG_PHNUM	5
#define IMG_SEG_OFF	512
#define IMG_SEG_SZ	0x20
#define IMG_TBL_OFF	576
#define IMG_STR_OFF	896
#define IMG_SH_OFF	1024
#define IMG_SHNUM	6
#define IMG_BUF		(IMG_SH_OFF + IMG_SHNUM * sizeof(struct elf64_shdr))
#define SH_TEXT		1
#define SH_DECOY	2
#define SH_PREFIX	3
#define SH_RSC		4
#define SH_STRTAB	5

static const char img_names[] =
	"\0.text\0.resource_tablex\0.resource_tabl\0.resource_table\0.shstrtab";
#define IMG_STR_SZ	sizeof(img_names)

static u32 name_off(const char *name)
{
	u32 i;

	for (i = 0; i < IMG_STR_SZ; i += strlen(img_names + i) + 1)
		if (!strcmp(img_names + i, name))
			return i;
	return U32_MAX;
}

struct st_img {
	u8 *buf;		/* IMG_BUF bytes */
	size_t size;		/* what the parser is told */
	bool is64;
};

/* The header fields the tests set, whatever the class. */
enum st_field {
	E_PHOFF, E_SHOFF, E_EHSIZE, E_PHENTSIZE, E_PHNUM, E_SHENTSIZE, E_SHNUM,
	E_SHSTRNDX, E_TYPE, E_MACHINE, E_VERSION, E_ENTRY,
	SH_NAME, SH_TYPE, SH_OFFSET, SH_SIZE,
	P_TYPE, P_OFFSET, P_VADDR, P_PADDR, P_FILESZ, P_MEMSZ,
};

struct st_field_desc {
	u8 off32, len32, off64, len64;
};

static const struct st_field_desc st_fields[] = {
	[E_PHOFF] = { offsetof(struct elf32_hdr, e_phoff), 4,
		      offsetof(struct elf64_hdr, e_phoff), 8 },
	[E_SHOFF] = { offsetof(struct elf32_hdr, e_shoff), 4,
		      offsetof(struct elf64_hdr, e_shoff), 8 },
	[E_EHSIZE] = { offsetof(struct elf32_hdr, e_ehsize), 2,
		       offsetof(struct elf64_hdr, e_ehsize), 2 },
	[E_PHENTSIZE] = { offsetof(struct elf32_hdr, e_phentsize), 2,
			  offsetof(struct elf64_hdr, e_phentsize), 2 },
	[E_PHNUM] = { offsetof(struct elf32_hdr, e_phnum), 2,
		      offsetof(struct elf64_hdr, e_phnum), 2 },
	[E_SHENTSIZE] = { offsetof(struct elf32_hdr, e_shentsize), 2,
			  offsetof(struct elf64_hdr, e_shentsize), 2 },
	[E_SHNUM] = { offsetof(struct elf32_hdr, e_shnum), 2,
		      offsetof(struct elf64_hdr, e_shnum), 2 },
	[E_SHSTRNDX] = { offsetof(struct elf32_hdr, e_shstrndx), 2,
			 offsetof(struct elf64_hdr, e_shstrndx), 2 },
	[E_TYPE] = { offsetof(struct elf32_hdr, e_type), 2,
		     offsetof(struct elf64_hdr, e_type), 2 },
	[E_MACHINE] = { offsetof(struct elf32_hdr, e_machine), 2,
			offsetof(struct elf64_hdr, e_machine), 2 },
	[E_VERSION] = { offsetof(struct elf32_hdr, e_version), 4,
			offsetof(struct elf64_hdr, e_version), 4 },
	[E_ENTRY] = { offsetof(struct elf32_hdr, e_entry), 4,
		      offsetof(struct elf64_hdr, e_entry), 8 },
	[SH_NAME] = { offsetof(struct elf32_shdr, sh_name), 4,
		      offsetof(struct elf64_shdr, sh_name), 4 },
	[SH_TYPE] = { offsetof(struct elf32_shdr, sh_type), 4,
		      offsetof(struct elf64_shdr, sh_type), 4 },
	[SH_OFFSET] = { offsetof(struct elf32_shdr, sh_offset), 4,
			offsetof(struct elf64_shdr, sh_offset), 8 },
	[SH_SIZE] = { offsetof(struct elf32_shdr, sh_size), 4,
		      offsetof(struct elf64_shdr, sh_size), 8 },
	[P_TYPE] = { offsetof(struct elf32_phdr, p_type), 4,
		     offsetof(struct elf64_phdr, p_type), 4 },
	[P_OFFSET] = { offsetof(struct elf32_phdr, p_offset), 4,
		       offsetof(struct elf64_phdr, p_offset), 8 },
	[P_VADDR] = { offsetof(struct elf32_phdr, p_vaddr), 4,
		      offsetof(struct elf64_phdr, p_vaddr), 8 },
	[P_PADDR] = { offsetof(struct elf32_phdr, p_paddr), 4,
		      offsetof(struct elf64_phdr, p_paddr), 8 },
	[P_FILESZ] = { offsetof(struct elf32_phdr, p_filesz), 4,
		       offsetof(struct elf64_phdr, p_filesz), 8 },
	[P_MEMSZ] = { offsetof(struct elf32_phdr, p_memsz), 4,
		      offsetof(struct elf64_phdr, p_memsz), 8 },
};

static size_t img_shentsize(const struct st_img *img)
{
	return img->is64 ? sizeof(struct elf64_shdr) : sizeof(struct elf32_shdr);
}

static size_t img_phentsize(const struct st_img *img)
{
	return img->is64 ? sizeof(struct elf64_phdr) : sizeof(struct elf32_phdr);
}

/* Set field @f of the header at @base to @v, little-endian, cut to its width. */
static void set_field(struct st_img *img, u8 *base, enum st_field f, u64 v)
{
	const struct st_field_desc *d = &st_fields[f];
	u8 *p = base + (img->is64 ? d->off64 : d->off32);

	switch (img->is64 ? d->len64 : d->len32) {
	case 2:
		put_unaligned_le16(v, p);
		break;
	case 4:
		put_unaligned_le32(v, p);
		break;
	default:
		put_unaligned_le64(v, p);
		break;
	}
}

static void set_ehdr(struct st_img *img, enum st_field f, u64 v)
{
	set_field(img, img->buf, f, v);
}

static void set_shdr(struct st_img *img, int i, enum st_field f, u64 v)
{
	set_field(img, img->buf + IMG_SH_OFF + i * img_shentsize(img), f, v);
}

static void set_phdr(struct st_img *img, int i, enum st_field f, u64 v)
{
	set_field(img, img->buf + IMG_PH_OFF + i * img_phentsize(img), f, v);
}

/* da of the bss segment: above 4 GiB in ELF64, to see all 64 bits pass. */
static u64 img_bss_da(const struct st_img *img)
{
	return img->is64 ? 0x120000000ULL : 0x20000000;
}

static void set_section(struct st_img *img, int i, const char *name,
			u32 type, u64 off, u64 size)
{
	set_shdr(img, i, SH_NAME, name_off(name));
	set_shdr(img, i, SH_TYPE, type);
	set_shdr(img, i, SH_OFFSET, off);
	set_shdr(img, i, SH_SIZE, size);
}

static void set_segment(struct st_img *img, int i, u32 type, u64 off,
			u64 da, u64 filesz, u64 memsz)
{
	set_phdr(img, i, P_TYPE, type);
	set_phdr(img, i, P_OFFSET, off);
	set_phdr(img, i, P_VADDR, da | 0xc0000000);
	set_phdr(img, i, P_PADDR, da);
	set_phdr(img, i, P_FILESZ, filesz);
	set_phdr(img, i, P_MEMSZ, memsz);
}

static struct st_img *build_elf(struct kunit *test, bool is64)
{
	struct st_img *img = kunit_kzalloc(test, sizeof(*img), GFP_KERNEL);
	u8 *b;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, img);
	img->buf = kunit_kzalloc(test, IMG_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, img->buf);
	img->is64 = is64;
	img->size = IMG_SH_OFF + IMG_SHNUM * img_shentsize(img);
	b = img->buf;

	memcpy(b, ELFMAG, SELFMAG);
	b[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	b[EI_DATA] = ELFDATA2LSB;
	b[EI_VERSION] = EV_CURRENT;
	set_ehdr(img, E_TYPE, ET_EXEC);
	set_ehdr(img, E_MACHINE, is64 ? EM_AARCH64 : EM_ARM);
	set_ehdr(img, E_VERSION, EV_CURRENT);
	set_ehdr(img, E_ENTRY, 0x1000);
	set_ehdr(img, E_PHOFF, IMG_PH_OFF);
	set_ehdr(img, E_SHOFF, IMG_SH_OFF);
	set_ehdr(img, E_EHSIZE, is64 ? sizeof(struct elf64_hdr) : sizeof(struct elf32_hdr));
	set_ehdr(img, E_PHENTSIZE, img_phentsize(img));
	set_ehdr(img, E_PHNUM, IMG_PHNUM);
	set_ehdr(img, E_SHENTSIZE, img_shentsize(img));
	set_ehdr(img, E_SHNUM, IMG_SHNUM);
	set_ehdr(img, E_SHSTRNDX, SH_STRTAB);

	/* Loaded: code (memsz > filesz), the table, a bss above 4 GiB. */
	set_segment(img, 0, PT_LOAD, IMG_SEG_OFF, 0x1000, IMG_SEG_SZ, 0x40);
	/* Skipped: not PT_LOAD; PT_LOAD with memsz 0 (upstream skips it unchecked). */
	set_segment(img, 1, PT_NOTE, IMG_SEG_OFF, 0x1000, 0x10, 0x10);
	set_segment(img, 2, PT_LOAD, IMG_SEG_OFF, 0x3000, 0x10, 0);
	set_segment(img, 3, PT_LOAD, IMG_TBL_OFF, 0x2000, T_SZ, T_SZ);
	set_segment(img, 4, PT_LOAD, 0, img_bss_da(img), 0, 0x100);
	for (i = 0; i < IMG_SEG_SZ; i++)
		b[IMG_SEG_OFF + i] = i;

	build_table(b + IMG_TBL_OFF);
	memcpy(b + IMG_STR_OFF, img_names, IMG_STR_SZ);

	set_section(img, SH_TEXT, ".text", SHT_PROGBITS, IMG_SEG_OFF, IMG_SEG_SZ);
	set_section(img, SH_DECOY, ".resource_tablex", SHT_PROGBITS,
		    IMG_SEG_OFF, 0x10);
	set_section(img, SH_PREFIX, ".resource_tabl", SHT_PROGBITS,
		    IMG_SEG_OFF, 0x10);
	set_section(img, SH_RSC, ".resource_table", SHT_PROGBITS,
		    IMG_TBL_OFF, T_SZ);
	set_section(img, SH_STRTAB, ".shstrtab", SHT_STRTAB, IMG_STR_OFF,
		    IMG_STR_SZ);
	return img;
}

/* The image in a buffer of exactly img->size bytes. */
static const u8 *img_exact(struct kunit *test, const struct st_img *img)
{
	u8 *p = kunit_kmalloc(test, img->size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p, img->buf, min_t(size_t, img->size, IMG_BUF));
	return p;
}

/* ------------------------------------------------------------------------
 * Recording callbacks.
 */
#define MAX_VISITS 8

struct seg_visit {
	u64 da;
	const u8 *data;
	u64 filesz;
	u64 memsz;
};

struct seg_log {
	int n;
	int stop_at;		/* return stop_ret on this call (1-based) */
	int stop_ret;
	struct seg_visit v[MAX_VISITS];
};

static int log_segment(void *priv, u64 da, const u8 *data, u64 filesz,
		       u64 memsz)
{
	struct seg_log *log = priv;

	if (log->n < MAX_VISITS)
		log->v[log->n] = (struct seg_visit){ da, data, filesz, memsz };
	log->n++;
	return log->n == log->stop_at ? log->stop_ret : 0;
}

struct rsc_visit {
	u32 type;
	void *rsc;
	int offset;
	int avail;
};

struct rsc_log {
	int n;
	int stop_at;
	int stop_ret;
	bool check;		/* run the snaptrace_rsc_check_*() of the type */
	bool clobber;		/* on the first call, break offset[1] */
	u8 *table;
	struct rsc_visit v[MAX_VISITS];
};

/* What the remoteproc core's handler does first: the type's checks. */
static int check_entry(u32 type, void *rsc, int offset, int avail)
{
	return snaptrace_rsc_check_entry(NULL, type, rsc, offset, avail);
}

static int log_entry(void *priv, u32 type, void *rsc, int offset, int avail)
{
	struct rsc_log *log = priv;

	if (log->n < MAX_VISITS)
		log->v[log->n] = (struct rsc_visit){ type, rsc, offset, avail };
	log->n++;
	if (log->clobber && log->n == 1)
		p32(log->table, 16 + 4, 0);
	if (log->check) {
		int ret = check_entry(type, rsc, offset, avail);

		if (ret)
			return ret;
	}
	return log->n == log->stop_at ? log->stop_ret : 0;
}

/* A copy of @sz bytes of @src at @shift bytes into a buffer of @sz + @shift. */
static u8 *table_exact(struct kunit *test, const u8 *src, size_t sz,
		       size_t shift)
{
	u8 *p = kunit_kmalloc(test, sz + shift, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p + shift, src, sz);
	return p + shift;
}

/* ------------------------------------------------------------------------
 * Bad ELF images: each case corrupts one thing; both APIs are asserted.
 */
struct elf_case {
	const char *desc;
	void (*mutate)(struct st_img *img);
	int find;	/* expected from snaptrace_elf_find_rsc_table() */
	int segs;	/* expected from snaptrace_elf_walk_segments() */
};

static void m_empty(struct st_img *img)
{
	img->size = 0;
}

static void m_magic_only(struct st_img *img) { img->size = SELFMAG; }

static void m_short_ehdr(struct st_img *img)
{
	img->size = (img->is64 ? sizeof(struct elf64_hdr) : sizeof(struct elf32_hdr)) - 1;
}

static void m_magic(struct st_img *img) { img->buf[EI_MAG1] = 'e'; }
static void m_class_none(struct st_img *img) { img->buf[EI_CLASS] = ELFCLASSNONE; }
static void m_class_3(struct st_img *img) { img->buf[EI_CLASS] = 3; }
static void m_msb(struct st_img *img) { img->buf[EI_DATA] = ELFDATA2MSB; }
static void m_data_none(struct st_img *img) { img->buf[EI_DATA] = ELFDATANONE; }
static void m_sh_past(struct st_img *img) { set_ehdr(img, E_SHNUM, IMG_SHNUM + 1); }
static void m_sh_huge(struct st_img *img) { set_ehdr(img, E_SHNUM, 0xffff); }
static void m_sh_overflow(struct st_img *img) { set_ehdr(img, E_SHOFF, U64_MAX - 0x10); }
static void m_sh_off_past(struct st_img *img) { set_ehdr(img, E_SHOFF, img->size); }
static void m_shentsize(struct st_img *img) { set_ehdr(img, E_SHENTSIZE, 8); }
static void m_shstrndx(struct st_img *img) { set_ehdr(img, E_SHSTRNDX, IMG_SHNUM); }
static void m_shstrndx_max(struct st_img *img) { set_ehdr(img, E_SHSTRNDX, 0xffff); }
static void m_ph_past(struct st_img *img) { set_ehdr(img, E_PHNUM, 0xffff); }
static void m_ph_overflow(struct st_img *img) { set_ehdr(img, E_PHOFF, U64_MAX - 0x10); }
static void m_ph_off_past(struct st_img *img) { set_ehdr(img, E_PHOFF, img->size - 8); }
static void m_phentsize(struct st_img *img) { set_ehdr(img, E_PHENTSIZE, 16); }

static void m_str_past(struct st_img *img)
{
	set_shdr(img, SH_STRTAB, SH_OFFSET, img->size - IMG_STR_SZ + 1);
}

static void m_str_overflow(struct st_img *img)
{
	set_shdr(img, SH_STRTAB, SH_SIZE, U64_MAX - 4);
}

static void m_str_nonul(struct st_img *img)
{
	img->buf[IMG_STR_OFF + IMG_STR_SZ - 1] = 'x';
}

static void m_str_empty(struct st_img *img) { set_shdr(img, SH_STRTAB, SH_SIZE, 0); }
static void m_name_past(struct st_img *img) { set_shdr(img, SH_TEXT, SH_NAME, IMG_STR_SZ); }
static void m_name_max(struct st_img *img) { set_shdr(img, SH_TEXT, SH_NAME, U32_MAX); }

static void m_rsc_past(struct st_img *img)
{
	set_shdr(img, SH_RSC, SH_OFFSET, img->size - T_SZ + 4);
}

static void m_rsc_overflow(struct st_img *img)
{
	set_shdr(img, SH_RSC, SH_OFFSET, U64_MAX - 8);
}

static void m_rsc_small(struct st_img *img) { set_shdr(img, SH_RSC, SH_SIZE, 12); }
static void m_rsc_zero(struct st_img *img) { set_shdr(img, SH_RSC, SH_SIZE, 0); }
static void m_rsc_nobits(struct st_img *img) { set_shdr(img, SH_RSC, SH_TYPE, SHT_NOBITS); }

static void m_rsc_missing(struct st_img *img)
{
	set_shdr(img, SH_RSC, SH_NAME, name_off(".text"));
}

static void m_no_sections(struct st_img *img)
{
	set_ehdr(img, E_SHNUM, 0);
}

static void m_shstrndx_undef(struct st_img *img) { set_ehdr(img, E_SHSTRNDX, SHN_UNDEF); }

static void m_seg_past(struct st_img *img)
{
	set_phdr(img, 0, P_FILESZ, img->size - IMG_SEG_OFF + 1);
	set_phdr(img, 0, P_MEMSZ, img->size);
}

static void m_seg_overflow(struct st_img *img)
{
	set_phdr(img, 0, P_OFFSET, U64_MAX - 0x10);
}

static void m_seg_off_past(struct st_img *img)
{
	set_phdr(img, 4, P_OFFSET, img->size + 1);	/* even with filesz 0 */
}

static void m_seg_filesz(struct st_img *img) { set_phdr(img, 0, P_MEMSZ, 0x10); }

static void m_note_filesz(struct st_img *img)
{
	set_phdr(img, 1, P_MEMSZ, 0);
	set_phdr(img, 1, P_OFFSET, U64_MAX);
}

static void m_no_segments(struct st_img *img)
{
	set_ehdr(img, E_PHNUM, 0);
}

static const struct elf_case elf_cases[] = {
	{ "empty file", m_empty, -EINVAL, -EINVAL },
	{ "file of 4 bytes, the magic", m_magic_only, -EINVAL, -EINVAL },
	{ "file one byte shorter than the ELF header", m_short_ehdr,
	  -EINVAL, -EINVAL },
	{ "bad magic", m_magic, -EINVAL, -EINVAL },
	{ "class ELFCLASSNONE", m_class_none, -EINVAL, -EINVAL },
	{ "class 3", m_class_3, -EINVAL, -EINVAL },
	{ "big-endian (ELFDATA2MSB)", m_msb, -EINVAL, -EINVAL },
	{ "ELFDATANONE", m_data_none, -EINVAL, -EINVAL },
	{ "section header table one entry past the file", m_sh_past,
	  -EINVAL, -EINVAL },
	{ "e_shnum 0xffff", m_sh_huge, -EINVAL, -EINVAL },
	{ "e_shoff near 2^64 (overflow)", m_sh_overflow, -EINVAL, -EINVAL },
	{ "e_shoff at the end of the file", m_sh_off_past, -EINVAL, -EINVAL },
	{ "e_shentsize 8", m_shentsize, -EINVAL, -EINVAL },
	{ "e_shstrndx == e_shnum", m_shstrndx, -EINVAL, -EINVAL },
	{ "e_shstrndx 0xffff", m_shstrndx_max, -EINVAL, -EINVAL },
	{ "program header table past the file (e_phnum 0xffff)",
	  m_ph_past, -EINVAL, -EINVAL },
	{ "e_phoff near 2^64 (overflow)", m_ph_overflow, -EINVAL, -EINVAL },
	{ "e_phoff 8 bytes before the end", m_ph_off_past, -EINVAL, -EINVAL },
	{ "e_phentsize 16", m_phentsize, -EINVAL, -EINVAL },
	{ "string table past the end of the file", m_str_past, -EINVAL, 0 },
	{ "string table size near 2^64 (overflow)", m_str_overflow,
	  -EINVAL, 0 },
	{ "string table without NUL", m_str_nonul, -EINVAL, 0 },
	{ "string table of 0 bytes", m_str_empty, -EINVAL, 0 },
	{ "sh_name at the end of the string table", m_name_past, -EINVAL, 0 },
	{ "sh_name 0xffffffff", m_name_max, -EINVAL, 0 },
	{ ".resource_table past the end of the file", m_rsc_past,
	  -EINVAL, 0 },
	{ ".resource_table offset near 2^64 (overflow)", m_rsc_overflow,
	  -EINVAL, 0 },
	{ ".resource_table smaller than the table header", m_rsc_small,
	  -EINVAL, 0 },
	{ ".resource_table of size 0", m_rsc_zero, -EINVAL, 0 },
	{ ".resource_table SHT_NOBITS", m_rsc_nobits, -EINVAL, 0 },
	{ "no .resource_table (only near names)", m_rsc_missing, -ENOENT, 0 },
	{ "no section headers", m_no_sections, -ENOENT, 0 },
	{ "e_shstrndx SHN_UNDEF", m_shstrndx_undef, -ENOENT, 0 },
	{ "segment p_offset + p_filesz past the file", m_seg_past, 0, -EINVAL },
	{ "segment p_offset near 2^64 (overflow)", m_seg_overflow, 0, -EINVAL },
	{ "segment with p_filesz 0 and p_offset past the file",
	  m_seg_off_past, 0, -EINVAL },
	{ "segment p_filesz > p_memsz", m_seg_filesz, 0, -EINVAL },
	{ "non-PT_LOAD segment is not checked", m_note_filesz, 0, 0 },
	{ "no program headers", m_no_segments, 0, 0 },
};

/* Each case in ELF32 then ELF64: parameter k is case k / 2, ELF64 if k is odd. */
static const u8 elf_params[2 * ARRAY_SIZE(elf_cases)];

static void elf_bad_desc(const u8 *p, char *desc)
{
	size_t k = p - elf_params;

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s (ELF%d)", elf_cases[k / 2].desc,
		 k % 2 ? 64 : 32);
}

KUNIT_ARRAY_PARAM(elf_bad, elf_params, elf_bad_desc);

static void parser_elf_bad(struct kunit *test)
{
	size_t k = (const u8 *)test->param_value - elf_params;
	const struct elf_case *c = &elf_cases[k / 2];
	struct st_img *img = build_elf(test, k % 2);
	struct seg_log log = {};
	size_t off = 0x5a5a, sz = 0x5a5a;
	const u8 *elf;

	c->mutate(img);
	elf = img_exact(test, img);
	KUNIT_EXPECT_EQ(test, snaptrace_elf_find_rsc_table(NULL, elf, img->size,
							   &off, &sz), c->find);
	if (c->find) {
		/* Outputs untouched on error. */
		KUNIT_EXPECT_EQ(test, off, 0x5a5a);
		KUNIT_EXPECT_EQ(test, sz, 0x5a5a);
	} else {
		KUNIT_EXPECT_EQ(test, off, IMG_TBL_OFF);
		KUNIT_EXPECT_EQ(test, sz, T_SZ);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_elf_walk_segments(NULL, elf, img->size,
							  log_segment, &log),
			c->segs);
}

/* ------------------------------------------------------------------------
 * Bad resource tables: snaptrace_rsc_table_check() and the walker both say
 * -EINVAL, and the walker calls nothing.
 */
struct table_case {
	const char *desc;
	void (*mutate)(u8 *t, size_t *sz);
};

static void t_short(u8 *t, size_t *sz) { *sz = 15; }
static void t_empty(u8 *t, size_t *sz)
{
	*sz = 0;
}

static void t_ver2(u8 *t, size_t *sz) { p32(t, 0, 2); }
static void t_ver0(u8 *t, size_t *sz) { p32(t, 0, 0); }
static void t_res0(u8 *t, size_t *sz) { p32(t, 8, 1); }
static void t_res1(u8 *t, size_t *sz) { p32(t, 12, 0x80000000); }
static void t_num_big(u8 *t, size_t *sz) { p32(t, 4, 1000); }
static void t_num_max(u8 *t, size_t *sz) { p32(t, 4, U32_MAX); }
static void t_num_edge(u8 *t, size_t *sz) { p32(t, 4, (T_SZ - 16) / 4 + 1); }
static void t_off_out(u8 *t, size_t *sz) { p32(t, 16 + 4, T_SZ + 8); }
static void t_off_end(u8 *t, size_t *sz) { p32(t, 16 + 4 * 4, T_SZ); }

static void t_off_noroom(u8 *t, size_t *sz)
{
	*sz = T_SZ + 2;		/* 2 bytes past the last entry: not a type word */
	p32(t, 16 + 4 * 4, T_SZ);
}

static void t_off_hdr0(u8 *t, size_t *sz) { p32(t, 16, 0); }
static void t_off_hdr8(u8 *t, size_t *sz) { p32(t, 16, 8); }
static void t_off_arr(u8 *t, size_t *sz) { p32(t, 16, 16); }
static void t_off_arr_last(u8 *t, size_t *sz) { p32(t, 16 + 2 * 4, T_HDR_END - 4); }
static void t_off_huge(u8 *t, size_t *sz) { p32(t, 16, 0xfffffffc); }
static void t_off_unaligned(u8 *t, size_t *sz) { p32(t, 16 + 4 * 4, T_VENDOR + 2); }
static void t_off_max(u8 *t, size_t *sz) { p32(t, 16, U32_MAX); }
static void t_dup(u8 *t, size_t *sz) { p32(t, 16 + 4, T_TRACE); }
static void t_overlap(u8 *t, size_t *sz) { p32(t, 16 + 4, T_CARVEOUT - 4); }

static void t_overlap_vendor(u8 *t, size_t *sz)
{
	/* The vdev's config space starts with 200: a "vendor entry" inside it. */
	p32(t, 16 + 4 * 4, T_VDEV + 4 + VDEV_F(vring) + 40);
}

static void t_overlap_first(u8 *t, size_t *sz)
{
	/* Entry 0 points into entry 2 (devmem): caught when 2 is checked. */
	p32(t, 16, T_DEVMEM + 8);
	p32(t, T_DEVMEM + 8, T_VENDOR_TYPE);
}

static void t_trunc_trace(u8 *t, size_t *sz) { p32(t, T_VENDOR, SNAPTRACE_RSC_TRACE); }
static void t_trunc_carveout(u8 *t, size_t *sz) { p32(t, T_VENDOR, SNAPTRACE_RSC_CARVEOUT); }
static void t_trunc_devmem(u8 *t, size_t *sz) { p32(t, T_VENDOR, SNAPTRACE_RSC_DEVMEM); }
static void t_trunc_vdev(u8 *t, size_t *sz) { p32(t, T_VENDOR, SNAPTRACE_RSC_VDEV); }
static void t_vdev_vrings(u8 *t, size_t *sz) { t[T_VDEV + 4 + VDEV_F(num_of_vrings)] = 3; }
static void t_vdev_vrings_max(u8 *t, size_t *sz) { t[T_VDEV + 4 + VDEV_F(num_of_vrings)] = 255; }

static void t_vdev_config(u8 *t, size_t *sz)
{
	/* One byte past the end of the table (the vendor entry removed). */
	p32(t, 4, T_NUM - 1);
	p32(t, T_VDEV + 4 + VDEV_F(config_len), T_SZ - (T_VDEV + 4 + 64) + 1);
}

static void t_vdev_config_max(u8 *t, size_t *sz)
{
	p32(t, T_VDEV + 4 + VDEV_F(config_len), U32_MAX);
}

static void t_last_trunc(u8 *t, size_t *sz)
{
	*sz = T_SZ - 1;		/* the vendor entry's payload is not ours */
	p32(t, T_VENDOR, SNAPTRACE_RSC_TRACE);
}

static const struct table_case table_cases[] = {
	{ "table shorter than its header", t_short },
	{ "table of 0 bytes", t_empty },
	{ "version 2", t_ver2 },
	{ "version 0", t_ver0 },
	{ "reserved[0] not zero", t_res0 },
	{ "reserved[1] not zero", t_res1 },
	{ "num 1000, too large for the table", t_num_big },
	{ "num 0xffffffff", t_num_max },
	{ "num one too large for the offset array", t_num_edge },
	{ "offset outside the table", t_off_out },
	{ "offset at the end of the table", t_off_end },
	{ "offset not leaving room for the 4-byte header", t_off_noroom },
	{ "offset 0, inside the header", t_off_hdr0 },
	{ "offset 8, inside the header (reserved words)", t_off_hdr8 },
	{ "offset 16, inside the offset array", t_off_arr },
	{ "offset at the last slot of the offset array", t_off_arr_last },
	{ "offset 0xfffffffc", t_off_huge },
	{ "offset 0xffffffff", t_off_max },
	{ "unaligned offset", t_off_unaligned },
	{ "two offsets to the same entry", t_dup },
	{ "overlapping entries", t_overlap },
	{ "unknown-type entry inside a vdev's config space", t_overlap_vendor },
	{ "earlier entry inside a later one", t_overlap_first },
	{ "truncated trace entry", t_trunc_trace },
	{ "truncated carveout entry", t_trunc_carveout },
	{ "truncated devmem entry", t_trunc_devmem },
	{ "truncated vdev entry (fixed part)", t_trunc_vdev },
	{ "vdev whose vrings run past the table", t_vdev_vrings },
	{ "vdev with 255 vrings", t_vdev_vrings_max },
	{ "vdev whose config space runs 1 byte past the table", t_vdev_config },
	{ "vdev config_len 0xffffffff", t_vdev_config_max },
	{ "trace entry 1 byte short at the end of the table", t_last_trunc },
};

KUNIT_ARRAY_PARAM_DESC(table_bad, table_cases, desc);

static void parser_table_bad(struct kunit *test)
{
	const struct table_case *c = test->param_value;
	u8 *src = kunit_kzalloc(test, T_BUF, GFP_KERNEL);
	struct rsc_log log = {};
	size_t sz = T_SZ;
	u8 *t;

	KUNIT_ASSERT_NOT_NULL(test, src);
	build_table(src);
	c->mutate(src, &sz);
	KUNIT_ASSERT_LE(test, sz, T_BUF);

	t = table_exact(test, src, sz, 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_table_check(NULL, t, sz), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_walk(NULL, t, sz, log_entry,
						 &log), -EINVAL);
	KUNIT_EXPECT_EQ(test, log.n, 0);
}

/* ------------------------------------------------------------------------
 * Entries given to snaptrace_rsc_check_*() directly, in a buffer of exactly
 * @avail bytes.
 */
#define FULL 0x7fff		/* avail: the entry's whole body */

struct entry_case {
	const char *desc;
	int idx;		/* which entry of the good table */
	void (*mutate)(u8 *b);
	int avail;
	int err;
};

/* 32 bytes (the NUL is not copied): format directives, non-printables. */
static const char evil_name[] = "%s%n%s%n%p%x\x1b[2J\x01\x7f\xff\tABCDEFGHIJ%%";
static_assert(sizeof(evil_name) == SNAPTRACE_RSC_NAME_LEN + 1);

static void e_none(u8 *b) { }
static void e_trace_res(u8 *b) { p32(b, TRACE_F(reserved), 1); }
static void e_trace_len0(u8 *b) { p32(b, TRACE_F(len), 0); }

static void e_trace_wrap(u8 *b)
{
	p32(b, TRACE_F(da), 0xfffff000);
	p32(b, TRACE_F(len), 0x1001);
}

static void e_trace_4g(u8 *b)
{
	p32(b, TRACE_F(da), 0xfffff000);
	p32(b, TRACE_F(len), 0x1000);
}

static void e_trace_top(u8 *b)
{
	p32(b, TRACE_F(da), 0xffffe000);
	p32(b, TRACE_F(len), 0x1fff);
}

static void e_trace_any(u8 *b) { p32(b, TRACE_F(da), SNAPTRACE_FW_RSC_ADDR_ANY); }
static void e_carve_res(u8 *b) { p32(b, CARVE_F(reserved), 0x100); }
static void e_devmem_res(u8 *b) { p32(b, DEVMEM_F(reserved), 0x80000000); }
static void e_vdev_res0(u8 *b) { b[VDEV_F(reserved)] = 1; }
static void e_vdev_res1(u8 *b) { b[VDEV_F(reserved) + 1] = 0x80; }
static void e_vdev_cfg_max(u8 *b) { p32(b, VDEV_F(config_len), U32_MAX); }
static void e_trace_evil(u8 *b) { memcpy(b + TRACE_F(name), evil_name, SNAPTRACE_RSC_NAME_LEN); }

static void e_trace_evil_res(u8 *b)
{
	e_trace_evil(b);
	e_trace_res(b);
}

static void e_trace_evil_len0(u8 *b)
{
	e_trace_evil(b);
	e_trace_len0(b);
}

static void e_trace_evil_wrap(u8 *b)
{
	e_trace_evil(b);
	e_trace_wrap(b);
}

static void e_carve_evil_res(u8 *b)
{
	memcpy(b + CARVE_F(name), evil_name, SNAPTRACE_RSC_NAME_LEN);
	e_carve_res(b);
}

static void e_devmem_evil_res(u8 *b)
{
	memcpy(b + DEVMEM_F(name), evil_name, SNAPTRACE_RSC_NAME_LEN);
	e_devmem_res(b);
}

static const struct entry_case entry_cases[] = {
	{ "good trace", 0, e_none, FULL, 0 },
	{ "good carveout", 1, e_none, FULL, 0 },
	{ "good devmem", 2, e_none, FULL, 0 },
	{ "good vdev", 3, e_none, FULL, 0 },
	{ "truncated trace", 0, e_none, 43, -EINVAL },
	{ "truncated carveout", 1, e_none, 51, -EINVAL },
	{ "truncated devmem", 2, e_none, 51, -EINVAL },
	{ "truncated vdev (fixed part)", 3, e_none, 23, -EINVAL },
	{ "vdev vrings past avail", 3, e_none, 24 + 20, -EINVAL },
	{ "vdev config past avail", 3, e_none, T_VDEV_BODY - 1, -EINVAL },
	{ "vdev config_len 0xffffffff", 3, e_vdev_cfg_max, FULL, -EINVAL },
	{ "trace with avail 0", 0, e_none, 0, -EINVAL },
	{ "carveout with negative avail", 1, e_none, -4, -EINVAL },
	{ "vdev with negative avail", 3, e_none, -1, -EINVAL },
	{ "trace reserved not zero", 0, e_trace_res, FULL, -EINVAL },
	{ "carveout reserved not zero", 1, e_carve_res, FULL, -EINVAL },
	{ "devmem reserved not zero", 2, e_devmem_res, FULL, -EINVAL },
	{ "vdev reserved[0] not zero", 3, e_vdev_res0, FULL, -EINVAL },
	{ "vdev reserved[1] not zero", 3, e_vdev_res1, FULL, -EINVAL },
	{ "trace len 0", 0, e_trace_len0, FULL, -EINVAL },
	{ "trace da + len past 2^32", 0, e_trace_wrap, FULL, -EINVAL },
	{ "trace da + len == 2^32", 0, e_trace_4g, FULL, -EINVAL },
	{ "trace ending at 0xffffffff", 0, e_trace_top, FULL, 0 },
	{ "trace at da 0xffffffff", 0, e_trace_any, FULL, -EINVAL },
	{ "trace name without NUL, with %s%n", 0, e_trace_evil, FULL, 0 },
	{ "same, reserved not zero", 0, e_trace_evil_res, FULL, -EINVAL },
	{ "same, len 0", 0, e_trace_evil_len0, FULL, -EINVAL },
	{ "same, da + len past 2^32", 0, e_trace_evil_wrap, FULL, -EINVAL },
	{ "carveout name without NUL, reserved not zero", 1, e_carve_evil_res,
	  FULL, -EINVAL },
	{ "devmem name without NUL, reserved not zero", 2, e_devmem_evil_res,
	  FULL, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(entry, entry_cases, desc);

static void parser_entry(struct kunit *test)
{
	const struct entry_case *c = test->param_value;
	u8 *src = kunit_kzalloc(test, T_BUF, GFP_KERNEL);
	int off = t_offsets[c->idx] + 4;
	int full = (c->idx + 1 < T_NUM ? t_offsets[c->idx + 1] : T_SZ) - off;
	int avail = c->avail == FULL ? full : c->avail;
	u8 *b;

	KUNIT_ASSERT_NOT_NULL(test, src);
	build_table(src);
	c->mutate(src + off);
	b = kunit_kmalloc(test, max(avail, 0), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	memcpy(b, src + off, clamp(avail, 0, full));

	KUNIT_EXPECT_EQ(test, check_entry(t_types[c->idx], b, off, avail), c->err);
}

/* ------------------------------------------------------------------------
 * Good images and tables.
 */
static const bool classes[] = { false, true };

static void class_desc(const bool *is64, char *desc)
{
	strscpy(desc, *is64 ? "ELF64" : "ELF32", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(elf_class, classes, class_desc);

/* The table is found where it is, past the names that only look like it. */
static void parser_elf_find(struct kunit *test)
{
	struct st_img *img = build_elf(test, *(const bool *)test->param_value);
	const u8 *elf = img_exact(test, img);
	size_t off = 0, sz = 0;

	KUNIT_ASSERT_EQ(test, snaptrace_elf_find_rsc_table(NULL, elf, img->size,
							   &off, &sz), 0);
	KUNIT_EXPECT_EQ(test, off, IMG_TBL_OFF);
	KUNIT_EXPECT_EQ(test, sz, T_SZ);
}

/* Two sections named .resource_table: the first wins, as in find_table(). */
static void parser_elf_first_wins(struct kunit *test)
{
	struct st_img *img = build_elf(test, *(const bool *)test->param_value);
	size_t off = 0, sz = 0;
	const u8 *elf;

	set_shdr(img, SH_DECOY, SH_NAME, name_off(".resource_table"));
	elf = img_exact(test, img);
	KUNIT_ASSERT_EQ(test, snaptrace_elf_find_rsc_table(NULL, elf, img->size,
							   &off, &sz), 0);
	KUNIT_EXPECT_EQ(test, off, IMG_SEG_OFF);
	KUNIT_EXPECT_EQ(test, sz, 0x10);
}

/* PT_LOAD with memsz > 0 only, in order, da = p_paddr. */
static void parser_elf_segments(struct kunit *test)
{
	struct st_img *img = build_elf(test, *(const bool *)test->param_value);
	const u8 *elf = img_exact(test, img);
	struct seg_log log = {};

	KUNIT_ASSERT_EQ(test, snaptrace_elf_walk_segments(NULL, elf, img->size,
							  log_segment, &log), 0);
	KUNIT_ASSERT_EQ(test, log.n, 3);
	KUNIT_EXPECT_EQ(test, log.v[0].da, 0x1000);
	KUNIT_EXPECT_PTR_EQ(test, log.v[0].data, elf + IMG_SEG_OFF);
	KUNIT_EXPECT_EQ(test, log.v[0].filesz, IMG_SEG_SZ);
	KUNIT_EXPECT_EQ(test, log.v[0].memsz, 0x40);
	KUNIT_EXPECT_EQ(test, log.v[0].data[IMG_SEG_SZ - 1], IMG_SEG_SZ - 1);
	KUNIT_EXPECT_EQ(test, log.v[1].da, 0x2000);
	KUNIT_EXPECT_PTR_EQ(test, log.v[1].data, elf + IMG_TBL_OFF);
	KUNIT_EXPECT_EQ(test, log.v[1].filesz, T_SZ);
	KUNIT_EXPECT_EQ(test, log.v[1].memsz, T_SZ);
	KUNIT_EXPECT_EQ(test, log.v[2].da, img_bss_da(img));
	KUNIT_EXPECT_PTR_EQ(test, log.v[2].data, elf);
	KUNIT_EXPECT_EQ(test, log.v[2].filesz, 0);
	KUNIT_EXPECT_EQ(test, log.v[2].memsz, 0x100);
}

/* The callback's first nonzero value stops the walk and is returned. */
static void parser_elf_segments_stop(struct kunit *test)
{
	struct st_img *img = build_elf(test, *(const bool *)test->param_value);
	const u8 *elf = img_exact(test, img);
	struct seg_log log = { .stop_at = 2, .stop_ret = -EBUSY };

	KUNIT_EXPECT_EQ(test, snaptrace_elf_walk_segments(NULL, elf, img->size,
							  log_segment, &log),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, log.n, 2);
}

/* Found in the image, the table walks and every entry passes its checks. */
static void parser_elf_table_walk(struct kunit *test)
{
	struct st_img *img = build_elf(test, *(const bool *)test->param_value);
	const u8 *elf = img_exact(test, img);
	struct rsc_log log = { .check = true };
	size_t off, sz;
	u8 *t;

	KUNIT_ASSERT_EQ(test, snaptrace_elf_find_rsc_table(NULL, elf, img->size,
							   &off, &sz), 0);
	t = table_exact(test, elf + off, sz, 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_walk(NULL, t, sz, log_entry,
						 &log), 0);
	KUNIT_EXPECT_EQ(test, log.n, T_NUM);
}

static const size_t shifts[] = { 0, 1, 2, 3 };

static void shift_desc(const size_t *shift, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "table at 4n + %zu", *shift);
}

KUNIT_ARRAY_PARAM(shift, shifts, shift_desc);

/* Entries in order, with the right type, offset and avail, at any alignment. */
static void parser_walk(struct kunit *test)
{
	size_t shift = *(const size_t *)test->param_value;
	u8 *src = kunit_kzalloc(test, T_BUF, GFP_KERNEL);
	struct rsc_log log = { .check = true };
	u8 *t;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, src);
	build_table(src);
	t = table_exact(test, src, T_SZ, shift);
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_table_check(NULL, t, T_SZ), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_rsc_walk(NULL, t, T_SZ,
						 log_entry, &log), 0);
	KUNIT_ASSERT_EQ(test, log.n, T_NUM);
	for (i = 0; i < T_NUM; i++) {
		KUNIT_EXPECT_EQ(test, log.v[i].type, t_types[i]);
		KUNIT_EXPECT_EQ(test, log.v[i].offset, t_offsets[i] + 4);
		KUNIT_EXPECT_EQ(test, log.v[i].avail, T_SZ - t_offsets[i] - 4);
		KUNIT_EXPECT_PTR_EQ(test, log.v[i].rsc, (void *)(t + t_offsets[i] + 4));
	}
	/* The unknown type is handed over, body and all. */
	KUNIT_EXPECT_EQ(test, g32(log.v[4].rsc, 0), 0xdeadbeef);
}

/* Entries in any order, as long as they do not overlap. */
static void parser_walk_unordered(struct kunit *test)
{
	u8 *src = kunit_kzalloc(test, T_BUF, GFP_KERNEL);
	struct rsc_log log = {};
	int i;

	KUNIT_ASSERT_NOT_NULL(test, src);
	build_table(src);
	for (i = 0; i < T_NUM; i++)
		p32(src, 16 + 4 * i, t_offsets[T_NUM - 1 - i]);
	KUNIT_ASSERT_EQ(test, snaptrace_rsc_walk(NULL, src, T_SZ,
						 log_entry, &log), 0);
	KUNIT_ASSERT_EQ(test, log.n, T_NUM);
	for (i = 0; i < T_NUM; i++)
		KUNIT_EXPECT_EQ(test, log.v[i].type, t_types[T_NUM - 1 - i]);
}

static void parser_walk_stop(struct kunit *test)
{
	u8 *src = kunit_kzalloc(test, T_BUF, GFP_KERNEL);
	struct rsc_log log = { .stop_at = 2, .stop_ret = 7 };

	KUNIT_ASSERT_NOT_NULL(test, src);
	build_table(src);
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_walk(NULL, src, T_SZ,
						 log_entry, &log), 7);
	KUNIT_EXPECT_EQ(test, log.n, 2);
}

/* An offset the callback breaks is caught before it is used. */
static void parser_walk_clobbered(struct kunit *test)
{
	u8 *src = kunit_kzalloc(test, T_BUF, GFP_KERNEL);
	struct rsc_log log = { .clobber = true, .table = src };

	KUNIT_ASSERT_NOT_NULL(test, src);
	build_table(src);
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_walk(NULL, src, T_SZ,
						 log_entry, &log), -EINVAL);
	KUNIT_EXPECT_EQ(test, log.n, 1);
}

static void parser_table_empty(struct kunit *test)
{
	u8 *src = kunit_kzalloc(test, T_BUF, GFP_KERNEL);
	struct rsc_log log = {};
	u8 *t;

	KUNIT_ASSERT_NOT_NULL(test, src);
	p32(src, 0, 1);
	t = table_exact(test, src, 16, 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_walk(NULL, t, 16, log_entry,
						 &log), 0);
	KUNIT_EXPECT_EQ(test, log.n, 0);
}

/* Sizes that do not fit the callback's int are refused before any read. */
static void parser_table_too_large(struct kunit *test)
{
	u8 *src = kunit_kzalloc(test, T_BUF, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, src);
	build_table(src);
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_table_check(NULL, src,
							(size_t)INT_MAX + 1),
			-EINVAL);
}

/* ------------------------------------------------------------------------
 * Real firmware (see /work/shared/fixtures/firmware/README.md).
 */
KUNIT_DEFINE_ACTION_WRAPPER(st_release_firmware, release_firmware,
			    const struct firmware *);

static const struct firmware *load_fixture(struct kunit *test, const char *name)
{
	struct device *dev = kunit_device_register(test, "snaptrace-parser");
	const struct firmware *fw;
	char path[96];
	int ret;

	KUNIT_ASSERT_FALSE(test, IS_ERR(dev));
	snprintf(path, sizeof(path), "snaptrace-fixtures/%s", name);
	ret = request_firmware(&fw, path, dev);
	if (ret == -ENOENT)
		kunit_skip(test, "fixtures not present: no /lib/firmware/%s", path);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_release_firmware,
							(void *)fw), 0);
	return fw;
}

/* The table, copied like upstream's cached_table. */
static u8 *fixture_table(struct kunit *test, const struct firmware *fw,
			 size_t want_off, size_t want_sz)
{
	size_t off = 0, sz = 0;

	KUNIT_ASSERT_EQ(test, snaptrace_elf_find_rsc_table(NULL, fw->data, fw->size,
							   &off, &sz), 0);
	KUNIT_EXPECT_EQ(test, off, want_off);
	KUNIT_ASSERT_EQ(test, sz, want_sz);
	return table_exact(test, fw->data + off, sz, 0);
}

static void parser_fixture_stm32(struct kunit *test)
{
	/* readelf -lW: PhysAddr, Offset, FileSiz, MemSiz of each LOAD. */
	static const struct {
		u64 da, off, filesz, memsz;
	} want[] = {
		{ 0x0, 0xf8, 0x6c1c, 0x6c1c },
		{ 0x6c1c, 0x6d14, 0xac, 0xac },
		{ 0x6cc8, 0x6dc0, 0x48, 0x48 },
		{ 0x100000b0, 0x30, 0, 0x14d0 },
	};
	const struct firmware *fw = load_fixture(test, "stm32mp157c-dk2_zephyr-hello.elf");
	struct rsc_log log = { .check = true };
	struct seg_log segs = {};
	const u8 *name;
	u8 *t;
	int i;

	t = fixture_table(test, fw, 0x6dc4, 0x44);
	KUNIT_EXPECT_EQ(test, g32(t, 0), 1);
	KUNIT_EXPECT_EQ(test, g32(t, 4), 1);
	KUNIT_ASSERT_EQ(test, snaptrace_rsc_walk(NULL, t, 0x44, log_entry,
						 &log), 0);
	KUNIT_ASSERT_EQ(test, log.n, 1);
	KUNIT_EXPECT_EQ(test, log.v[0].type, SNAPTRACE_RSC_TRACE);
	KUNIT_EXPECT_EQ(test, log.v[0].offset, 0x18);
	KUNIT_EXPECT_EQ(test, log.v[0].avail, 0x44 - 0x18);
	KUNIT_EXPECT_EQ(test, g32(log.v[0].rsc, TRACE_F(da)), 0x10000371);
	KUNIT_EXPECT_EQ(test, g32(log.v[0].rsc, TRACE_F(len)), 0x401);
	name = (u8 *)log.v[0].rsc + TRACE_F(name);
	KUNIT_EXPECT_EQ(test, memcmp(name, "Zephyr_log", sizeof("Zephyr_log")), 0);

	KUNIT_ASSERT_EQ(test, snaptrace_elf_walk_segments(NULL, fw->data, fw->size,
							  log_segment, &segs), 0);
	KUNIT_ASSERT_EQ(test, segs.n, (int)ARRAY_SIZE(want));
	for (i = 0; i < (int)ARRAY_SIZE(want); i++) {
		KUNIT_EXPECT_EQ(test, segs.v[i].da, want[i].da);
		KUNIT_EXPECT_PTR_EQ(test, segs.v[i].data, fw->data + want[i].off);
		KUNIT_EXPECT_EQ(test, segs.v[i].filesz, want[i].filesz);
		KUNIT_EXPECT_EQ(test, segs.v[i].memsz, want[i].memsz);
	}
}

static void parser_fixture_kv260_rpmsg(struct kunit *test)
{
	const struct firmware *fw = load_fixture(test, "kv260_r5_rpmsg_multi_services.elf");
	struct rsc_log log = {};
	const u8 *v;
	u8 *t;
	int i;

	t = fixture_table(test, fw, 0x82cc, 0x58);
	KUNIT_ASSERT_EQ(test, snaptrace_rsc_walk(NULL, t, 0x58, log_entry,
						 &log), 0);
	KUNIT_ASSERT_EQ(test, log.n, 1);
	KUNIT_ASSERT_EQ(test, log.v[0].type, SNAPTRACE_RSC_VDEV);
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_check_vdev(NULL, log.v[0].rsc,
						       log.v[0].offset,
						       log.v[0].avail), 0);
	v = log.v[0].rsc;
	KUNIT_EXPECT_EQ(test, g32(v, VDEV_F(id)), 7);
	KUNIT_ASSERT_EQ(test, v[VDEV_F(num_of_vrings)], 2);
	for (i = 0; i < 2; i++) {
		const u8 *r = v + VDEV_F(vring) + i * sizeof(struct snaptrace_fw_rsc_vdev_vring);

		KUNIT_EXPECT_EQ(test, g32(r, 0), 0xffffffff);
		KUNIT_EXPECT_EQ(test, g32(r, 4), 0x10);
		KUNIT_EXPECT_EQ(test, g32(r, 8), 8);
	}
}

static void parser_fixture_kv260_hello(struct kunit *test)
{
	const struct firmware *fw = load_fixture(test, "kv260_r5_zephyr-hello.elf");
	struct seg_log segs = {};
	size_t off = 0, sz = 0;

	KUNIT_EXPECT_EQ(test, snaptrace_elf_find_rsc_table(NULL, fw->data, fw->size,
							   &off, &sz), -ENOENT);
	KUNIT_EXPECT_EQ(test, snaptrace_elf_walk_segments(NULL, fw->data, fw->size,
							  log_segment, &segs), 0);
	KUNIT_EXPECT_EQ(test, segs.n, 3);
}

static void parser_fixture_zcu102(struct kunit *test)
{
	const struct firmware *fw = load_fixture(test, "zcu102-split_split_rpu0.elf");
	size_t off = 0, sz = 0;

	KUNIT_EXPECT_EQ(test, snaptrace_elf_find_rsc_table(NULL, fw->data, fw->size,
							   &off, &sz), -EINVAL);
}

static struct kunit_case snaptrace_parser_cases[] = {
	KUNIT_CASE_PARAM(parser_elf_bad, elf_bad_gen_params),
	KUNIT_CASE_PARAM(parser_table_bad, table_bad_gen_params),
	KUNIT_CASE_PARAM(parser_entry, entry_gen_params),
	KUNIT_CASE_PARAM(parser_elf_find, elf_class_gen_params),
	KUNIT_CASE_PARAM(parser_elf_first_wins, elf_class_gen_params),
	KUNIT_CASE_PARAM(parser_elf_segments, elf_class_gen_params),
	KUNIT_CASE_PARAM(parser_elf_segments_stop, elf_class_gen_params),
	KUNIT_CASE_PARAM(parser_elf_table_walk, elf_class_gen_params),
	KUNIT_CASE_PARAM(parser_walk, shift_gen_params),
	KUNIT_CASE(parser_walk_unordered),
	KUNIT_CASE(parser_walk_stop),
	KUNIT_CASE(parser_walk_clobbered),
	KUNIT_CASE(parser_table_empty),
	KUNIT_CASE(parser_table_too_large),
	KUNIT_CASE(parser_fixture_stm32),
	KUNIT_CASE(parser_fixture_kv260_rpmsg),
	KUNIT_CASE(parser_fixture_kv260_hello),
	KUNIT_CASE(parser_fixture_zcu102),
	{}
};

static struct kunit_suite snaptrace_parser_suite = {
	.name = "snaptrace_parser",
	.test_cases = snaptrace_parser_cases,
};

kunit_test_suites(&snaptrace_parser_suite);
