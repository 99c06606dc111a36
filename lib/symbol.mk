# Symbolization and the in-memory dataset (owned by the analysis work).
dcpiinclude_HEADERS += lib/dcpi/symbol.h lib/dcpi/dataset.h
