// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit test mutating real firmware images: our example images
 * (snaptrace/example{64,32}.elf) and the real ones of
 * /work/shared/fixtures/firmware (snaptrace-fixtures/), loaded with
 * request_firmware(), each changed in 500 ways drawn from a fixed seed:
 * bit flips anywhere and in the headers or the resource table, truncations,
 * and rewritten fields of the ELF header, the section and program headers,
 * the resource table header and its entries, set to values chosen to break
 * bounds (0, all ones, the image size, around 2^31 and 2^32...).
 *
 * Each mutant, in a buffer of exactly its size (KASAN sees any over-read),
 * goes through the whole parse path as a remote's load does: find the
 * table, copy it, walk it with the per-type checks, walk the segments
 * touching both ends of each. Every result must be 0 or a -E* code, and
 * what is accepted must lie within what was given: the table inside the
 * image, each entry inside the table, each segment inside the image.
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

/* Mutants per image, and the seed they are drawn from. */
#define MU_CASES	500
#define MU_SEED		0x5eed5eedU
/* Bytes changed in place by one mutant, at most (restored after it). */
#define MU_SPOTS	8

struct mu_image {
	const char *path;	/* under /lib/firmware */
	const char *desc;
};

static const struct mu_image mu_images[] = {
	{ "snaptrace/example64.elf", "example64" },
	{ "snaptrace/example32.elf", "example32" },
	{ "snaptrace-fixtures/stm32mp157c-dk2_zephyr-hello.elf", "stm32mp157" },
	{ "snaptrace-fixtures/kv260_r5_rpmsg_multi_services.elf", "kv260-rpmsg" },
	{ "snaptrace-fixtures/kv260_r5_zephyr-hello.elf", "kv260-hello" },
	{ "snaptrace-fixtures/zcu102-split_split_rpu0.elf", "zcu102" },
};

static void mu_image_desc(const struct mu_image *img, char *desc)
{
	strscpy(desc, img->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mu_image, mu_images, mu_image_desc);

/* Where things lie in the original image (0 size: not found). */
struct mu_layout {
	bool is64;
	size_t phoff, phentsize, phnum;
	size_t shoff, shentsize, shnum;
	size_t tbl_off, tbl_sz;
	size_t rsc_shdr;	/* offset of .resource_table's section header */
};

/* What one run saw; a violation keeps the first mutant's number. */
struct mu_stats {
	unsigned int cases;
	unsigned int tables;	/* tables found */
	unsigned int walked;	/* tables accepted and walked to the end */
	unsigned int entries;	/* entries accepted by their check */
	unsigned int segments;
	unsigned int bad_rc;	/* neither 0 nor a -E* code */
	unsigned int out_of_bounds;	/* accepted, but outside what was given */
	unsigned int first_case;
	const char *first_what;
};

/* An entry walk's state. */
struct mu_walk {
	struct mu_stats *st;
	size_t tbl_sz;
	const char *what;	/* first violation */
};

/* A segment walk's state. */
struct mu_segs {
	struct mu_stats *st;
	const u8 *img;
	size_t len;
	const char *what;
	u8 sink;
};

/* xorshift32: the same mutants on every kernel and compiler. */
static u32 mu_rand(u32 *s)
{
	u32 x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

static u32 mu_below(u32 *s, u32 n)
{
	return n ? mu_rand(s) % n : 0;
}

static bool mu_rc_ok(int rc)
{
	return rc == 0 || (rc < 0 && rc >= -MAX_ERRNO);
}

static int mu_entry(void *priv, u32 type, void *rsc, int offset, int avail)
{
	struct mu_walk *w = priv;
	const struct snaptrace_fw_rsc_vdev *vdev = rsc;
	size_t need = 0;
	int rc;

	if (offset < (int)sizeof(struct snaptrace_rsc_table) + 4 || offset % 4 ||
	    avail < 0 || (size_t)offset + avail != w->tbl_sz) {
		w->what = w->what ?: "entry outside the table";
		return 0;
	}
	rc = snaptrace_rsc_check_entry(NULL, type, rsc, offset, avail);
	if (!mu_rc_ok(rc)) {
		w->what = w->what ?: "entry check: not an errno";
		return 0;
	}
	if (rc)
		return 0;
	w->st->entries++;
	switch (type) {
	case SNAPTRACE_RSC_CARVEOUT:
		need = sizeof(struct snaptrace_fw_rsc_carveout);
		break;
	case SNAPTRACE_RSC_DEVMEM:
		need = sizeof(struct snaptrace_fw_rsc_devmem);
		break;
	case SNAPTRACE_RSC_TRACE:
		need = sizeof(struct snaptrace_fw_rsc_trace);
		break;
	case SNAPTRACE_RSC_VDEV:
		need = sizeof(*vdev);
		if (need <= (size_t)avail)
			need += vdev->num_of_vrings * sizeof(vdev->vring[0]) +
				(size_t)get_unaligned_le32(&vdev->config_len);
		break;
	}
	if (need > (size_t)avail)
		w->what = w->what ?: "accepted entry runs past the table";
	return 0;
}

static int mu_segment(void *priv, u64 da, const u8 *data, u64 filesz, u64 memsz)
{
	struct mu_segs *s = priv;

	s->st->segments++;
	if (filesz > memsz || data < s->img || data > s->img + s->len ||
	    filesz > (u64)(s->img + s->len - data)) {
		s->what = s->what ?: "segment outside the image";
		return 0;
	}
	/* Both ends: KASAN reports a byte past the image. */
	if (filesz)
		s->sink ^= data[0] ^ data[filesz - 1];
	return 0;
}

static void mu_violation(struct mu_stats *st, unsigned int *counter,
			 const char *what)
{
	if (!st->bad_rc && !st->out_of_bounds) {
		st->first_case = st->cases;
		st->first_what = what;
	}
	(*counter)++;
}

/* The whole parse path on @img (exactly @len bytes). */
static void mu_parse(const u8 *img, size_t len, struct mu_stats *st)
{
	struct mu_segs segs = { .st = st, .img = img, .len = len };
	struct mu_walk walk = { .st = st };
	size_t off = 0, sz = 0;
	u8 *table;
	int rc;

	rc = snaptrace_elf_find_rsc_table(NULL, img, len, &off, &sz);
	if (!mu_rc_ok(rc))
		mu_violation(st, &st->bad_rc, "find_rsc_table: not an errno");
	if (!rc) {
		st->tables++;
		if (off > len || sz > len - off) {
			mu_violation(st, &st->out_of_bounds, "table outside the image");
			return;
		}
		/* A private copy of exactly its size, as upstream's cached_table. */
		table = kmemdup(img + off, sz ?: 1, GFP_KERNEL);
		if (table) {
			walk.tbl_sz = sz;
			rc = snaptrace_rsc_walk(NULL, table, sz, mu_entry, &walk);
			if (!mu_rc_ok(rc))
				mu_violation(st, &st->bad_rc, "rsc_walk: not an errno");
			else if (!rc)
				st->walked++;
			if (walk.what)
				mu_violation(st, &st->out_of_bounds, walk.what);
			kfree(table);
		}
	}
	rc = snaptrace_elf_walk_segments(NULL, img, len, mu_segment, &segs);
	if (!mu_rc_ok(rc))
		mu_violation(st, &st->bad_rc, "walk_segments: not an errno");
	if (segs.what)
		mu_violation(st, &st->out_of_bounds, segs.what);
}

static u64 mu_rd(const u8 *p, size_t w)
{
	return w == 8 ? get_unaligned_le64(p) : w == 4 ? get_unaligned_le32(p) :
	       get_unaligned_le16(p);
}

/* Where the headers and the table are, from the original image. */
static void mu_layout(const u8 *img, size_t len, struct mu_layout *l)
{
	memset(l, 0, sizeof(*l));
	if (len < sizeof(struct elf32_hdr))
		return;
	l->is64 = img[EI_CLASS] == ELFCLASS64 && len >= sizeof(struct elf64_hdr);
	if (l->is64) {
		l->phoff = mu_rd(img + offsetof(struct elf64_hdr, e_phoff), 8);
		l->phentsize = mu_rd(img + offsetof(struct elf64_hdr, e_phentsize), 2);
		l->phnum = mu_rd(img + offsetof(struct elf64_hdr, e_phnum), 2);
		l->shoff = mu_rd(img + offsetof(struct elf64_hdr, e_shoff), 8);
		l->shentsize = mu_rd(img + offsetof(struct elf64_hdr, e_shentsize), 2);
		l->shnum = mu_rd(img + offsetof(struct elf64_hdr, e_shnum), 2);
	} else {
		l->phoff = mu_rd(img + offsetof(struct elf32_hdr, e_phoff), 4);
		l->phentsize = mu_rd(img + offsetof(struct elf32_hdr, e_phentsize), 2);
		l->phnum = mu_rd(img + offsetof(struct elf32_hdr, e_phnum), 2);
		l->shoff = mu_rd(img + offsetof(struct elf32_hdr, e_shoff), 4);
		l->shentsize = mu_rd(img + offsetof(struct elf32_hdr, e_shentsize), 2);
		l->shnum = mu_rd(img + offsetof(struct elf32_hdr, e_shnum), 2);
	}
	if (l->phoff > len || l->phnum * l->phentsize > len - l->phoff)
		l->phnum = 0;
	if (l->shoff > len || l->shnum * l->shentsize > len - l->shoff)
		l->shnum = 0;
	if (snaptrace_elf_find_rsc_table(NULL, img, len, &l->tbl_off, &l->tbl_sz))
		l->tbl_sz = 0;
	/* The section whose contents are the table. */
	if (l->tbl_sz) {
		size_t i, sh, o;

		for (i = 0; i < l->shnum; i++) {
			sh = l->shoff + i * l->shentsize;
			o = l->is64 ? mu_rd(img + sh + offsetof(struct elf64_shdr, sh_offset), 8) :
				      mu_rd(img + sh + offsetof(struct elf32_shdr, sh_offset), 4);
			if (o == l->tbl_off)
				l->rsc_shdr = sh;
		}
	}
}

/* A value meant to break bounds, for a field of @w bytes. */
static u64 mu_value(u32 *s, size_t w, const struct mu_layout *l, size_t len)
{
	static const u64 fixed[] = {
		0, 1, 2, 4, 0x10, 0x7f, 0x80, 0xff, 0x100, 0xfff, 0x1000, 0xffff,
		0x10000, 0x7fffffff, 0x80000000, 0xfffffffc, 0xffffffff,
		0x100000000ULL, 0x8000000000000000ULL, ~0ULL,
	};
	u32 pick = mu_below(s, ARRAY_SIZE(fixed) + 8);
	u64 v;

	if (pick < ARRAY_SIZE(fixed))
		v = fixed[pick];
	else if (pick == ARRAY_SIZE(fixed))
		v = len;
	else if (pick == ARRAY_SIZE(fixed) + 1)
		v = len - 1;
	else if (pick == ARRAY_SIZE(fixed) + 2)
		v = len + 1;
	else if (pick == ARRAY_SIZE(fixed) + 3)
		v = len - 4;
	else if (pick == ARRAY_SIZE(fixed) + 4)
		v = l->tbl_off;
	else if (pick == ARRAY_SIZE(fixed) + 5)
		v = l->tbl_sz + mu_below(s, 9) - 4;
	else
		v = ((u64)mu_rand(s) << 32) | mu_rand(s);
	if (w < 8)
		v &= (1ULL << (8 * w)) - 1;
	return v;
}

/* In-place changes of one mutant, undone after it. */
struct mu_spots {
	unsigned int n;
	size_t off[MU_SPOTS];
	size_t w[MU_SPOTS];
};

static void mu_put(u8 *img, size_t len, struct mu_spots *sp, size_t off,
		   size_t w, u64 v)
{
	if (sp->n == MU_SPOTS || off > len || w > len - off)
		return;
	sp->off[sp->n] = off;
	sp->w[sp->n++] = w;
	if (w == 8)
		put_unaligned_le64(v, img + off);
	else if (w == 4)
		put_unaligned_le32(v, img + off);
	else if (w == 2)
		put_unaligned_le16(v, img + off);
	else
		img[off] = v;
}

static void mu_flip(u8 *img, size_t len, struct mu_spots *sp, u32 *s,
		    size_t from, size_t span)
{
	unsigned int i, n = 1 + mu_below(s, 4);
	size_t off;

	if (from >= len || !span)
		return;
	span = min(span, len - from);
	for (i = 0; i < n; i++) {
		off = from + mu_below(s, span);
		mu_put(img, len, sp, off, 1, img[off] ^ BIT(mu_below(s, 8)));
	}
}

/* One field of a header at @base: @fields lists offset, width pairs. */
static void mu_field(u8 *img, size_t len, struct mu_spots *sp, u32 *s,
		     const struct mu_layout *l, size_t base,
		     const u8 (*fields)[2], size_t nfields)
{
	const u8 *f = fields[mu_below(s, nfields)];

	mu_put(img, len, sp, base + f[0], f[1], mu_value(s, f[1], l, len));
}

/* A field: its offset and width in bytes (as in <linux/elf.h>). */
#define MU_F(type, field, width) { offsetof(struct type, field), width }

static const u8 mu_ehdr64[][2] = {
	{ EI_CLASS, 1 }, { EI_DATA, 1 }, MU_F(elf64_hdr, e_type, 2),
	MU_F(elf64_hdr, e_phoff, 8), MU_F(elf64_hdr, e_shoff, 8),
	MU_F(elf64_hdr, e_ehsize, 2), MU_F(elf64_hdr, e_phentsize, 2),
	MU_F(elf64_hdr, e_phnum, 2), MU_F(elf64_hdr, e_shentsize, 2),
	MU_F(elf64_hdr, e_shnum, 2), MU_F(elf64_hdr, e_shstrndx, 2),
};

static const u8 mu_ehdr32[][2] = {
	{ EI_CLASS, 1 }, { EI_DATA, 1 }, MU_F(elf32_hdr, e_type, 2),
	MU_F(elf32_hdr, e_phoff, 4), MU_F(elf32_hdr, e_shoff, 4),
	MU_F(elf32_hdr, e_ehsize, 2), MU_F(elf32_hdr, e_phentsize, 2),
	MU_F(elf32_hdr, e_phnum, 2), MU_F(elf32_hdr, e_shentsize, 2),
	MU_F(elf32_hdr, e_shnum, 2), MU_F(elf32_hdr, e_shstrndx, 2),
};

static const u8 mu_shdr64[][2] = {
	MU_F(elf64_shdr, sh_name, 4), MU_F(elf64_shdr, sh_type, 4),
	MU_F(elf64_shdr, sh_offset, 8), MU_F(elf64_shdr, sh_size, 8),
};

static const u8 mu_shdr32[][2] = {
	MU_F(elf32_shdr, sh_name, 4), MU_F(elf32_shdr, sh_type, 4),
	MU_F(elf32_shdr, sh_offset, 4), MU_F(elf32_shdr, sh_size, 4),
};

static const u8 mu_phdr64[][2] = {
	MU_F(elf64_phdr, p_type, 4), MU_F(elf64_phdr, p_offset, 8),
	MU_F(elf64_phdr, p_paddr, 8), MU_F(elf64_phdr, p_filesz, 8),
	MU_F(elf64_phdr, p_memsz, 8),
};

static const u8 mu_phdr32[][2] = {
	MU_F(elf32_phdr, p_type, 4), MU_F(elf32_phdr, p_offset, 4),
	MU_F(elf32_phdr, p_paddr, 4), MU_F(elf32_phdr, p_filesz, 4),
	MU_F(elf32_phdr, p_memsz, 4),
};

enum mu_kind {
	MU_FLIP_ANY,
	MU_FLIP_HEADERS,
	MU_FLIP_TABLE,
	MU_EHDR,
	MU_SHDR,
	MU_PHDR,
	MU_TABLE_HDR,
	MU_ENTRY,
	MU_TRUNCATE,
	MU_KINDS
};

/* Applies one mutant of @kind in place; returns the length to parse. */
static size_t mu_mutate(u8 *img, size_t len, const struct mu_layout *l,
			struct mu_spots *sp, u32 *s, enum mu_kind kind)
{
	size_t base, num, hdr;

	switch (kind) {
	case MU_FLIP_ANY:
		mu_flip(img, len, sp, s, 0, len);
		break;
	case MU_FLIP_HEADERS:
		if (mu_below(s, 2) || !l->shnum)
			mu_flip(img, len, sp, s, 0, l->is64 ? sizeof(struct elf64_hdr) +
				l->phnum * l->phentsize : sizeof(struct elf32_hdr) +
				l->phnum * l->phentsize);
		else
			mu_flip(img, len, sp, s, l->shoff, l->shnum * l->shentsize);
		break;
	case MU_FLIP_TABLE:
		mu_flip(img, len, sp, s, l->tbl_off, l->tbl_sz);
		break;
	case MU_EHDR:
		if (l->is64)
			mu_field(img, len, sp, s, l, 0, mu_ehdr64, ARRAY_SIZE(mu_ehdr64));
		else
			mu_field(img, len, sp, s, l, 0, mu_ehdr32, ARRAY_SIZE(mu_ehdr32));
		break;
	case MU_SHDR:
		if (!l->shnum)
			break;
		/* Half the time the table's own section. */
		base = l->rsc_shdr && mu_below(s, 2) ? l->rsc_shdr :
		       l->shoff + mu_below(s, l->shnum) * l->shentsize;
		if (l->is64)
			mu_field(img, len, sp, s, l, base, mu_shdr64, ARRAY_SIZE(mu_shdr64));
		else
			mu_field(img, len, sp, s, l, base, mu_shdr32, ARRAY_SIZE(mu_shdr32));
		break;
	case MU_PHDR:
		if (!l->phnum)
			break;
		base = l->phoff + mu_below(s, l->phnum) * l->phentsize;
		if (l->is64)
			mu_field(img, len, sp, s, l, base, mu_phdr64, ARRAY_SIZE(mu_phdr64));
		else
			mu_field(img, len, sp, s, l, base, mu_phdr32, ARRAY_SIZE(mu_phdr32));
		break;
	case MU_TABLE_HDR:
		if (l->tbl_sz < sizeof(struct snaptrace_rsc_table))
			break;
		num = get_unaligned_le32(img + l->tbl_off + 4);
		hdr = sizeof(struct snaptrace_rsc_table) / 4 + min_t(size_t, num, 16);
		/* ver, num, reserved[2], or one of the offsets. */
		mu_put(img, len, sp, l->tbl_off + 4 * mu_below(s, hdr), 4,
		       mu_value(s, 4, l, l->tbl_sz));
		break;
	case MU_ENTRY:
		if (l->tbl_sz < sizeof(struct snaptrace_rsc_table) + 4)
			break;
		num = get_unaligned_le32(img + l->tbl_off + 4);
		if (!num || num > 64)
			break;
		base = get_unaligned_le32(img + l->tbl_off + 16 + 4 * mu_below(s, num));
		if (base >= l->tbl_sz)
			break;
		/* The type word or one of the next 15 words of the entry. */
		mu_put(img, len, sp, l->tbl_off + base + 4 * mu_below(s, 16), 4,
		       mu_value(s, 4, l, l->tbl_sz));
		break;
	case MU_TRUNCATE:
	default:
		/* Mostly near the structures, where bounds checks live. */
		switch (mu_below(s, 4)) {
		case 0:
			return mu_below(s, len);
		case 1:
			return min(len - 1, l->tbl_off + mu_below(s, l->tbl_sz + 1));
		case 2:
			return min(len - 1, l->shoff + mu_below(s, l->shnum * l->shentsize + 1));
		default:
			return mu_below(s, min_t(size_t, len, 256));
		}
	}
	return len;
}

KUNIT_DEFINE_ACTION_WRAPPER(mu_release_firmware, release_firmware,
			    const struct firmware *);

/*
 * One image, 500 mutants of it (fixed seed): every result is 0 or a -E*
 * code, and nothing accepted lies outside what was given. The original
 * image must pass whole if it has a table; an image without one (or with
 * a broken one, as two of the real ones) has its ELF structures mutated.
 */
static void mutate_image(struct kunit *test)
{
	const struct mu_image *param = test->param_value;
	struct device *dev = kunit_device_register(test, "snaptrace-mutate");
	const struct firmware *fw;
	struct mu_stats *st;
	struct mu_layout l;
	struct mu_spots sp;
	unsigned int i, j;
	u32 seed = MU_SEED;
	size_t len;
	u8 *img, *cut;
	int ret;

	KUNIT_ASSERT_FALSE(test, IS_ERR(dev));
	ret = firmware_request_nowarn(&fw, param->path, dev);
	if (ret == -ENOENT)
		kunit_skip(test, "no /lib/firmware/%s", param->path);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mu_release_firmware,
							(void *)fw), 0);
	KUNIT_ASSERT_GT(test, fw->size, 0);

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	img = kunit_kmalloc(test, fw->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, img);
	memcpy(img, fw->data, fw->size);
	mu_layout(img, fw->size, &l);
	mu_parse(img, fw->size, st);
	/* Some real images have no table, or a broken one: their ELF is mutated. */
	if (l.tbl_sz)
		KUNIT_ASSERT_EQ_MSG(test, st->walked, 1, "the original's table is refused");
	KUNIT_ASSERT_EQ(test, st->bad_rc + st->out_of_bounds, 0);
	memset(st, 0, sizeof(*st));

	for (i = 0; i < MU_CASES; i++) {
		enum mu_kind kind = mu_below(&seed, MU_KINDS);

		st->cases = i;
		sp.n = 0;
		len = mu_mutate(img, fw->size, &l, &sp, &seed, kind);
		if (len < fw->size) {
			/* Exactly the truncated size, for KASAN. */
			cut = kmemdup(img, len ?: 1, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, cut);
			mu_parse(cut, len, st);
			kfree(cut);
		} else {
			mu_parse(img, len, st);
		}
		for (j = 0; j < sp.n; j++)
			memcpy(img + sp.off[j], fw->data + sp.off[j], sp.w[j]);
		cond_resched();
	}
	KUNIT_EXPECT_EQ_MSG(test, memcmp(img, fw->data, fw->size), 0,
			    "the image was not restored after each mutant");
	KUNIT_EXPECT_EQ_MSG(test, st->bad_rc, 0, "first: mutant %u: %s", st->first_case,
			    st->first_what);
	KUNIT_EXPECT_EQ_MSG(test, st->out_of_bounds, 0, "first: mutant %u: %s",
			    st->first_case, st->first_what);
	/* The mutants reached the walk, and some were refused there. */
	if (l.tbl_sz) {
		KUNIT_EXPECT_GT(test, st->walked, 0);
		KUNIT_EXPECT_LT(test, st->walked, st->tables);
	}
	kunit_info(test, "%u mutants: %u tables found, %u walked whole (%u entries accepted), %u segments\n",
		   MU_CASES, st->tables, st->walked, st->entries, st->segments);
}

static struct kunit_case snaptrace_mutate_cases[] = {
	KUNIT_CASE_PARAM(mutate_image, mu_image_gen_params),
	{}
};

static struct kunit_suite snaptrace_mutate_suite = {
	.name = "snaptrace_mutate",
	.test_cases = snaptrace_mutate_cases,
};

kunit_test_suites(&snaptrace_mutate_suite);
