#!/usr/bin/python3
# Maps the text (the first executable PT_LOAD) of each ELF file listed in
# LIST, as the dynamic loader would, and stays: a process that maps many
# images without running them (tests/integration/test_callchain_bpf_tables.sh,
# bench/unwind_mem.sh).  Writes how many it mapped to READY, then sleeps.
#   map_text.py LIST READY
import mmap
import struct
import sys
import time

PAGE = mmap.PAGESIZE
keep = []
for path in open(sys.argv[1]).read().split():
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if h[:4] != b"\x7fELF" or h[4] != 2:
                continue
            phoff, = struct.unpack_from("<Q", h, 0x20)
            phentsize, phnum = struct.unpack_from("<HH", h, 0x36)
            f.seek(phoff)
            ph = f.read(phentsize * phnum)
            for i in range(phnum):
                ptype, pflags, off, _, _, filesz = struct.unpack_from(
                    "<IIQQQQ", ph, i * phentsize)
                if ptype == 1 and pflags & 1 and filesz > 0:
                    start = off - off % PAGE
                    keep.append(mmap.mmap(f.fileno(), off + filesz - start,
                                          mmap.MAP_PRIVATE,
                                          mmap.PROT_READ | mmap.PROT_EXEC,
                                          offset=start))
                    break
    except (OSError, ValueError, struct.error) as e:
        print("map_text: %s: %s" % (path, e), file=sys.stderr)
open(sys.argv[2], "w").write("%d\n" % len(keep))
time.sleep(100000)
