# Fault tests (issue 7's reliability list): kill -9 during flushes, a full
# disk, the database removed or read-only, process storms and churn.  A
# second dcpid on the same database is test_daemon_status.sh's.
FAULT_ITESTS = tests/integration/test_fault_kill.sh \
	tests/integration/test_fault_enospc.sh \
	tests/integration/test_fault_dbdir.sh \
	tests/integration/test_fault_storm.sh \
	tests/integration/test_fault_churn.sh \
	tests/integration/test_fault_tempfiles.sh \
	tests/integration/test_fault_dblock.sh
TESTS += $(FAULT_ITESTS)
EXTRA_DIST += $(FAULT_ITESTS)

# Hostile neighbours (issue 18): links, modes and special files in the
# database and among dcpictl's inputs.
HOSTILE_ITESTS = tests/integration/test_fault_dbsymlink.sh \
	tests/integration/test_fault_dbperm.sh \
	tests/integration/test_fault_special.sh
TESTS += $(HOSTILE_ITESTS)
EXTRA_DIST += $(HOSTILE_ITESTS)
