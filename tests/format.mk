# tests: format (the profile format, the database layout, dcpictl cat, fuzzing)
if ENABLE_TESTS
check_PROGRAMS += tests/test_profile tests/test_db
TESTS += tests/test_profile tests/test_db
tests_test_profile_SOURCES = tests/test_profile.c
tests_test_profile_CFLAGS = $(TESTS_CFLAGS) -DGOLDEN_DIR='"$(abs_top_srcdir)/tests/golden"'
tests_test_profile_LDADD = lib/libdcpi.la $(TESTS_LIBS)
tests_test_db_SOURCES = tests/test_db.c
tests_test_db_CFLAGS = $(TESTS_CFLAGS)
tests_test_db_LDADD = lib/libdcpi.la $(TESTS_LIBS)

# Image identity against binutils: one program with a build-id, one without.
check_PROGRAMS += tests/test_image tests/image_bid tests/image_nobid
TESTS += tests/test_image
tests_test_image_SOURCES = tests/test_image.c
tests_test_image_CFLAGS = $(TESTS_CFLAGS) \
	-DIMAGE_BID='"$(abs_top_builddir)/tests/image_bid"' \
	-DIMAGE_NOBID='"$(abs_top_builddir)/tests/image_nobid"'
tests_test_image_LDADD = lib/libdcpi.la $(TESTS_LIBS)
tests_image_bid_SOURCES = tests/image_sample.c
tests_image_bid_LDFLAGS = $(AM_LDFLAGS) -Wl,--build-id=sha1
tests_image_nobid_SOURCES = tests/image_sample.c
tests_image_nobid_LDFLAGS = $(AM_LDFLAGS) -Wl,--build-id=none
endif

# A profile written by the library, for test_cat.sh.
check_PROGRAMS += tests/mkprofile
tests_mkprofile_SOURCES = tests/mkprofile.c
tests_mkprofile_LDADD = lib/libdcpi.la
TESTS += tests/integration/test_cat.sh
EXTRA_DIST += tests/integration/test_cat.sh tests/golden/gen.sh \
	tests/golden/unknown.prof tests/golden/unknown.cat \
	tests/golden/epoch10.prof tests/golden/epoch10.cat \
	tests/golden/empty.prof tests/golden/empty.cat \
	tests/golden/blanks.prof tests/golden/blanks.cat \
	tests/golden/bad-overlap.prof tests/golden/bad-noterm.prof

# Fuzzing (tests/fuzz/run.sh explains the scheme).  The corpus of each
# target runs as a plain regression test; check.sh fuzzes briefly when
# clang is there; `make fuzz FUZZ_SECONDS=N` fuzzes each target N seconds.
check_PROGRAMS += tests/fuzz/fuzz_profile_corpus
TESTS += tests/fuzz/fuzz_profile_corpus tests/fuzz/check.sh
tests_fuzz_fuzz_profile_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_profile.c
tests_fuzz_fuzz_profile_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/profile"'
tests_fuzz_fuzz_profile_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/check.sh tests/fuzz/driver.c \
	tests/fuzz/fuzz_profile.c tests/fuzz/corpus
FUZZ_SECONDS = 60
fuzz:
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	$(SHELL) '$(abs_top_srcdir)/tests/fuzz/run.sh' $(FUZZ_SECONDS)
.PHONY: fuzz
clean-local: clean-fuzz
clean-fuzz:
	-rm -rf tests/fuzz/out
.PHONY: clean-fuzz
