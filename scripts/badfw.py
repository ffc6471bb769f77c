#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make broken firmware images, one per bad-input class, from a good one.

Usage: badfw.py GOOD.elf OUTDIR

Each output, OUTDIR/<class>.elf, differs from GOOD.elf in one thing a
remoteproc host must refuse. The remoteproc scenario loads each one and
checks that the remote does not start and keeps nothing.
"""
import struct
import sys


class Elf:
    def __init__(self, data):
        self.b = bytearray(data)
        self.is64 = self.b[4] == 2
        e = '<'
        if self.is64:
            (self.shoff,) = struct.unpack_from(e + 'Q', self.b, 0x28)
            (self.phoff,) = struct.unpack_from(e + 'Q', self.b, 0x20)
            self.shentsize, self.shnum, self.shstrndx = struct.unpack_from(e + 'HHH', self.b, 0x3a)
            self.phentsize, self.phnum = struct.unpack_from(e + 'HH', self.b, 0x36)
        else:
            (self.shoff,) = struct.unpack_from(e + 'I', self.b, 0x20)
            (self.phoff,) = struct.unpack_from(e + 'I', self.b, 0x1c)
            self.shentsize, self.shnum, self.shstrndx = struct.unpack_from(e + 'HHH', self.b, 0x2e)
            self.phentsize, self.phnum = struct.unpack_from(e + 'HH', self.b, 0x2a)

    def shdr(self, i):
        o = self.shoff + i * self.shentsize
        if self.is64:
            name, typ, flags, addr, off, size = struct.unpack_from('<IIQQQQ', self.b, o)
            return dict(o=o, name=name, off=off, size=size, off_at=o + 24, size_at=o + 32, w='Q')
        name, typ, flags, addr, off, size = struct.unpack_from('<IIIIII', self.b, o)
        return dict(o=o, name=name, off=off, size=size, off_at=o + 16, size_at=o + 20, w='I')

    def section(self, wanted):
        strtab = self.shdr(self.shstrndx)
        for i in range(self.shnum):
            s = self.shdr(i)
            start = strtab['off'] + s['name']
            name = bytes(self.b[start:self.b.index(0, start)]).decode()
            if name == wanted:
                s['name_at'] = start
                return s
        raise SystemExit('no section ' + wanted)

    def u32(self, off, val):
        struct.pack_into('<I', self.b, off, val & 0xffffffff)

    def get32(self, off):
        return struct.unpack_from('<I', self.b, off)[0]

    def entry(self, index):
        """File offset of the body (after the type word) of entry @index."""
        t = self.section('.resource_table')['off']
        return t + self.get32(t + 16 + 4 * index) + 4

    def entry_of_type(self, typ, nth=0):
        t = self.section('.resource_table')['off']
        for i in range(self.get32(t + 4)):
            body = self.entry(i)
            if self.get32(body - 4) == typ:
                if nth == 0:
                    return i, body
                nth -= 1
        raise SystemExit('no entry of type %d' % typ)


CARVEOUT, DEVMEM, TRACE = 0, 1, 2


def variants(good):
    def v(fn):
        e = Elf(good)
        fn(e)
        return bytes(e.b)

    t = lambda e: e.section('.resource_table')['off']
    out = {}
    out['no-table'] = v(lambda e: e.b.__setitem__(e.section('.resource_table')['name_at'] + 1, ord('X')))
    out['version-2'] = v(lambda e: e.u32(t(e), 2))
    out['reserved-set'] = v(lambda e: e.u32(t(e) + 8, 1))
    out['num-too-large'] = v(lambda e: e.u32(t(e) + 4, 1000))
    out['offset-near-4g'] = v(lambda e: e.u32(t(e) + 16, 0xfffffffc))
    out['offset-in-header'] = v(lambda e: e.u32(t(e) + 16, 8))
    out['offset-unaligned'] = v(lambda e: e.u32(t(e) + 16, e.get32(t(e) + 16) + 2))
    out['entries-overlap'] = v(lambda e: e.u32(t(e) + 20, e.get32(t(e) + 16) + 8))

    def sec_size(e, size):
        s = e.section('.resource_table')
        struct.pack_into('<' + s['w'], e.b, s['size_at'], size)
    out['table-truncated'] = v(lambda e: sec_size(e, e.section('.resource_table')['size'] - 8))
    out['table-smaller-than-header'] = v(lambda e: sec_size(e, 12))

    def trace(e, field, val):
        _, body = e.entry_of_type(TRACE)
        e.u32(body + {'da': 0, 'len': 4, 'reserved': 8}[field], val)
    out['trace-len-0'] = v(lambda e: trace(e, 'len', 0))
    out['trace-reserved'] = v(lambda e: trace(e, 'reserved', 1))
    out['trace-outside-memory'] = v(lambda e: trace(e, 'da', 0x50000000))
    out['trace-at-region-end'] = v(lambda e: trace(e, 'da', 0x10040000))
    out['trace-da-len-overflow'] = v(lambda e: (trace(e, 'da', 0xffffff00), trace(e, 'len', 0x200)))

    def carveout_len(e, val):
        _, body = e.entry_of_type(CARVEOUT)
        e.u32(body + 8, val)
    out['carveout-too-large'] = v(lambda e: carveout_len(e, 0x40000000))

    def shoff(e):
        s = e.section('.resource_table')
        struct.pack_into('<' + s['w'], e.b, s['off_at'], len(e.b) + 0x1000)
    out['section-past-eof'] = v(shoff)
    out['bad-shstrndx'] = v(lambda e: struct.pack_into('<H', e.b, 0x3e if e.is64 else 0x32, 0x7fff))
    out['wrong-class'] = v(lambda e: e.b.__setitem__(4, 3))
    out['big-endian'] = v(lambda e: e.b.__setitem__(5, 2))

    def seg(e):
        o = e.phoff
        # first PT_LOAD: p_paddr
        struct.pack_into('<Q' if e.is64 else '<I', e.b, o + (24 if e.is64 else 12), 0x70000000)
    out['segment-outside-memory'] = v(seg)
    out['file-truncated'] = bytes(good[:len(good) // 2])
    out['file-shorter-than-header'] = bytes(good[:40])
    return out


def main():
    good = open(sys.argv[1], 'rb').read()
    for name, data in variants(good).items():
        with open('%s/%s.elf' % (sys.argv[2], name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
