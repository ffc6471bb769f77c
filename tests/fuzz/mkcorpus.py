#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the fuzzer's seed corpus: small hand-made inputs, one per class.

Usage: mkcorpus.py OUTDIR   (the committed copy is tests/fuzz/corpus/)

The example images are build products (they need the ARM cross compiler),
so the seeds are built here from nothing: a minimal ELF64 and ELF32 image
(one PT_LOAD segment, a .resource_table section holding a table of five
entries: trace, carveout, devmem, vdev with two vrings and config space,
and an unknown vendor type), each broken in every way scripts/badfw.py
knows (one file per bad-input class), and the bare table with its own bad
classes (the fuzzer also walks each input as a table). Deterministic: the
same files every run.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'scripts'))
import badfw  # noqa: E402

TRACE, CARVEOUT, DEVMEM, VDEV, VENDOR = 2, 0, 1, 3, 200
ADDR_ANY = 0xffffffff


def name32(s):
    return s.encode().ljust(32, b'\0')


def table():
    """The good table: header, five offsets, five entries (284 bytes)."""
    entries = [
        struct.pack('<IIII', TRACE, 0x10000000, 0x400, 0) + name32('snaptrace_log'),
        struct.pack('<IIIIII', CARVEOUT, 0x100000, ADDR_ANY, 0x10000, 0, 0) +
        name32('vdev0buffer'),
        struct.pack('<IIIIII', DEVMEM, 0x40000000, 0x40000000, 0x1000, 0, 0) +
        name32('uart'),
        struct.pack('<IIIIIIBBxx', VDEV, 7, 0, 1, 0, 8, 0, 2) +
        struct.pack('<IIIII', ADDR_ANY, 0x10, 8, 0, 0) +
        struct.pack('<IIIII', ADDR_ANY, 0x10, 8, 1, 0) +
        struct.pack('<II', VENDOR, 0xc0ffee),
        struct.pack('<III', VENDOR, 0xdeadbeef, 0),
    ]
    hdr = 16 + 4 * len(entries)
    offs, body = [], b''
    for e in entries:
        offs.append(hdr + len(body))
        body += e
    return struct.pack('<IIII', 1, len(entries), 0, 0) + \
        struct.pack('<%dI' % len(offs), *offs) + body


def elf(is64):
    """A minimal image: ELF header, one PT_LOAD, .text, the table, names."""
    ehsize, phentsize, shentsize = (64, 56, 64) if is64 else (52, 32, 40)
    text = b'\xf4' * 16
    tbl = table()
    names = b'\0.text\0.resource_table\0.shstrtab\0'
    text_off = 0x100
    tbl_off = text_off + len(text)
    names_off = tbl_off + len(tbl)
    shoff = (names_off + len(names) + 7) & ~7
    da = 0x10000000
    img = bytearray(shoff + 4 * shentsize)

    ident = b'\x7fELF' + bytes([2 if is64 else 1, 1, 1]) + b'\0' * 9
    machine = 62 if is64 else 40
    if is64:
        struct.pack_into('<16sHHIQQQIHHHHHH', img, 0, ident, 2, machine, 1,
                         da, ehsize, shoff, 0, ehsize, phentsize, 1,
                         shentsize, 4, 3)
        struct.pack_into('<IIQQQQQQ', img, ehsize, 1, 7, text_off, da, da,
                         len(text) + len(tbl), len(text) + len(tbl), 4)
    else:
        struct.pack_into('<16sHHIIIIIHHHHHH', img, 0, ident, 2, machine, 1,
                         da, ehsize, shoff, 0, ehsize, phentsize, 1,
                         shentsize, 4, 3)
        struct.pack_into('<IIIIIIII', img, ehsize, 1, text_off, da, da,
                         len(text) + len(tbl), len(text) + len(tbl), 7, 4)
    img[text_off:text_off + len(text)] = text
    img[tbl_off:tbl_off + len(tbl)] = tbl
    img[names_off:names_off + len(names)] = names

    # Sections: null, .text, .resource_table, .shstrtab (name offsets 1, 7, 23).
    secs = [(0, 0, 0, 0, 0, 0), (1, 1, 6, da, text_off, len(text)),
            (7, 1, 3, da + len(text), tbl_off, len(tbl)),
            (23, 3, 0, 0, names_off, len(names))]
    for i, (nm, typ, flags, addr, off, size) in enumerate(secs):
        o = shoff + i * shentsize
        if is64:
            struct.pack_into('<IIQQQQIIQQ', img, o, nm, typ, flags, addr, off,
                             size, 0, 0, 4, 0)
        else:
            struct.pack_into('<IIIIIIIIII', img, o, nm, typ, flags, addr, off,
                             size, 0, 0, 4, 0)
    return bytes(img)


def table_variants(t):
    def v(off, val):
        b = bytearray(t)
        struct.pack_into('<I', b, off, val)
        return bytes(b)
    return {
        'table': t,
        'table-version-2': v(0, 2),
        'table-num-too-large': v(4, 1000),
        'table-reserved-set': v(8, 1),
        'table-offset-near-4g': v(16, 0xfffffffc),
        'table-offset-in-header': v(16, 8),
        'table-offset-unaligned': v(16, 38),
        'table-entries-overlap': v(20, 44),
        # The vdev's config_len (entry 3: type word, then 16 bytes).
        'table-vdev-config-past-end': v(struct.unpack_from('<I', t, 28)[0] + 20, 0x1000),
        'table-truncated': t[:len(t) - 8],
        'table-header-only': t[:16],
    }


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = table_variants(table())
    for bits, is64 in (('64', True), ('32', False)):
        good = elf(is64)
        seeds['elf%s' % bits] = good
        for name, data in badfw.variants(good).items():
            seeds['elf%s-%s' % (bits, name)] = data
    for name, data in sorted(seeds.items()):
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
