# Attribution: address spaces (attr.c), images (image.c), the kernel,
# modules and vdso (kernel.c).
noinst_HEADERS += daemon/attr.h daemon/image.h daemon/kernel.h daemon/cache.h
daemon_libdcpid_la_SOURCES += daemon/attr.c daemon/image.c daemon/kernel.c daemon/cache.c
