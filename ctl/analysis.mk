# Analysis commands: prof, list, diff, epochs, gc.
ctl_libdcpictl_la_SOURCES += ctl/analysis.c ctl/analysis.h ctl/prof.c ctl/list.c \
	ctl/diff.c ctl/epochs.c
ctl_libdcpictl_la_LIBADD += $(CAPSTONE_LIBS) -lm
