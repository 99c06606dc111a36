/*
 * Kernel-side images for attribution: the kernel ([kernel.kallsyms],
 * tstart = _stext, tsize = _etext - _stext from /proc/kallsyms, build-id
 * from /sys/kernel/notes), loaded modules ("[NAME]", tstart = the module's
 * load address from /proc/modules, tsize = its size there, so offsets are
 * relative to the load address; build-id from
 * /sys/module/NAME/notes/.note.gnu.build-id) and the vdso ("[vdso]", read
 * from dcpid's own mapping at AT_SYSINFO_EHDR: one kernel, one vdso; the
 * 32-bit vdso of compat processes is not told apart).
 * Internal to daemon/attr.c and kernel.c.
 */
#ifndef DCPID_KERNEL_H
#define DCPID_KERNEL_H

#include <stdint.h>

#include "imagetab.h"

/* Reads kallsyms, notes, modules and the vdso; never fails (what cannot be
 * read makes its samples unattributed). */
void kernel_init(void);
void kernel_fini(void);
/* A kernel-mode PC: the kernel or a module.  Rereads /proc/modules (at most
 * once a second) when pc is in neither, for modules loaded since. */
enum attr_reason kernel_sample(uint64_t pc, struct image **img, uint32_t *offset);
/* The vdso's image, NULL if it could not be read. */
struct img *kernel_vdso(void);
/* Its ELF image, *len bytes in dcpid's own address space (every process
 * of this kernel maps the same): the bytes its unwind table is built
 * from; NULL if it could not be read. */
const void *kernel_vdso_elf(size_t *len);
/* The kernel text range, for tests: 0 when kallsyms hides addresses. */
uint64_t kernel_stext(void);
/* The kernel's image id (hex build-id, or the hash of its release when it
 * has none), which names its kallsyms snapshots in the database (epoch.c);
 * NULL before kernel_init or when kallsyms hides addresses. */
const char *kernel_id(void);
size_t kernel_memory(void);
/* For tests: read modules from these instead of /proc/modules and
 * /sys/module (strings kept, not copied); takes effect at kernel_init. */
void kernel_set_paths(const char *modules, const char *sysmodule);

#endif
