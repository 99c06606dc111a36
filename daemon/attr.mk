# Attribution: address spaces (attr.c), images (image.c), the kernel,
# modules and vdso (kernel.c).
noinst_HEADERS += daemon/attr.h daemon/image.h daemon/kernel.h daemon/cache.h
daemon_libdcpid_la_SOURCES += daemon/attr.c daemon/image.c daemon/kernel.c daemon/cache.c
# JIT code: anonymous executable memory named by perf maps (jit.c).
noinst_HEADERS += daemon/jit.h
daemon_libdcpid_la_SOURCES += daemon/jit.c
