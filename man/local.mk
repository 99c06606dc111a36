# man: mdoc pages, checked by tests/integration/test_man.sh.
dist_man_MANS += man/dcpictl.1 man/dcpi.5 man/dcpid.conf.5 man/dcpid.8 man/dcpi-clickhouse.5
