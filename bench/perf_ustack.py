#!/usr/bin/env python3
"""perf.data of perf record --call-graph dwarf -> bench/unwind_replay's file.

    bench/perf_ustack.py perf.data OUT

Reads the file's first event attribute (its sample_type and
sample_regs_user) and its data section: executable mappings (MMAP,
MMAP2) and samples with user registers (IP, SP, BP) and a stack copy
(its dyn_size bytes).  The layouts are include/uapi/linux/perf_event.h's
and tools/perf's perf.data header (PERFILE2).
"""
import struct
import sys

SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR = 1, 2, 4, 8
SAMPLE_READ, SAMPLE_CALLCHAIN, SAMPLE_ID, SAMPLE_CPU = 16, 32, 64, 128
SAMPLE_PERIOD, SAMPLE_STREAM_ID, SAMPLE_RAW = 256, 512, 1024
SAMPLE_BRANCH_STACK, SAMPLE_REGS_USER, SAMPLE_STACK_USER = 2048, 4096, 8192
SAMPLE_IDENTIFIER = 1 << 16
REC_MMAP, REC_SAMPLE, REC_MMAP2 = 1, 9, 10
PERF_REG_X86_BP, PERF_REG_X86_SP, PERF_REG_X86_IP = 6, 7, 8
PROT_EXEC = 4


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: bench/perf_ustack.py perf.data OUT')
    f = open(sys.argv[1], 'rb').read()
    magic, _, attr_size, attrs_off, _, data_off, data_size = \
        struct.unpack_from('<8sQQQQQQ', f, 0)
    if magic != b'PERFILE2':
        sys.exit('%s: not a perf.data file' % sys.argv[1])
    attr = f[attrs_off:attrs_off + attr_size]
    st = struct.unpack_from('<Q', attr, 24)[0]
    mask = struct.unpack_from('<Q', attr, 80)[0]
    if st & (SAMPLE_READ | SAMPLE_BRANCH_STACK) or not st & SAMPLE_REGS_USER \
            or not st & SAMPLE_STACK_USER:
        sys.exit('sample_type %#x: record with --call-graph dwarf' % st)
    order = [i for i in range(64) if mask >> i & 1]
    ibp, isp, iip = (order.index(PERF_REG_X86_BP), order.index(PERF_REG_X86_SP),
                     order.index(PERF_REG_X86_IP))
    out = open(sys.argv[2], 'wb')
    p, end, nmaps, nsamples = data_off, data_off + data_size, 0, 0
    while p + 8 <= end:
        typ, _, size = struct.unpack_from('<IHH', f, p)
        if size < 8:
            break
        b = p + 8
        if typ in (REC_MMAP, REC_MMAP2):
            pid, _, addr, ln, pgoff = struct.unpack_from('<IIQQQ', f, b)
            if typ == REC_MMAP2:
                prot = struct.unpack_from('<I', f, b + 56)[0]
                name = f[b + 64:p + size].split(b'\0')[0]
            else:
                prot, name = PROT_EXEC, f[b + 32:p + size].split(b'\0')[0]
            if prot & PROT_EXEC and pid != 0xffffffff:
                out.write(b'M' + struct.pack('<IQQQH', pid, addr, ln, pgoff,
                                             len(name)) + name)
                nmaps += 1
        elif typ == REC_SAMPLE:
            q, pid, tm = b, 0, 0
            for bit in (SAMPLE_IDENTIFIER, SAMPLE_IP):
                q += 8 if st & bit else 0
            if st & SAMPLE_TID:
                pid = struct.unpack_from('<I', f, q)[0]
                q += 8
            if st & SAMPLE_TIME:
                tm = struct.unpack_from('<Q', f, q)[0]
                q += 8
            for bit in (SAMPLE_ADDR, SAMPLE_ID, SAMPLE_STREAM_ID, SAMPLE_CPU,
                        SAMPLE_PERIOD):
                q += 8 if st & bit else 0
            if st & SAMPLE_CALLCHAIN:
                q += 8 + 8 * struct.unpack_from('<Q', f, q)[0]
            if st & SAMPLE_RAW:
                q += 4 + struct.unpack_from('<I', f, q)[0]
            abi = struct.unpack_from('<Q', f, q)[0]
            q += 8
            regs = None
            if abi:
                regs = struct.unpack_from('<%dQ' % len(order), f, q)
                q += 8 * len(order)
            sz = struct.unpack_from('<Q', f, q)[0]
            q += 8
            stack = b''
            if sz:
                dyn = struct.unpack_from('<Q', f, q + sz)[0]
                stack = f[q:q + min(sz, dyn)]
            if regs is not None:
                out.write(b'S' + struct.pack('<QIQQQI', tm, pid, regs[iip], regs[isp],
                                             regs[ibp], len(stack)) + stack)
                nsamples += 1
        p += size
    print('%d mappings, %d samples' % (nmaps, nsamples), file=sys.stderr)


main()
