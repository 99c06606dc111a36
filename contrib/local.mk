# contrib: the systemd units, the cron file, the dcpi group and the example
# configuration.  Units and the cron file name the installed programs, so
# they are generated here with the configured directories.
systemdsystemunit_DATA = contrib/dcpid.service contrib/dcpi-epoch.service \
	contrib/dcpi-epoch.timer
CLEANFILES += contrib/dcpid.service contrib/dcpi-epoch.service contrib/dcpi.cron
EXTRA_DIST += contrib/dcpid.service.in contrib/dcpi-epoch.service.in \
	contrib/dcpi-epoch.timer contrib/dcpi.cron.in contrib/dcpi.sysusers \
	contrib/dcpid.conf
noinst_DATA = contrib/dcpi.cron
# The push to a ClickHouse store: examples, off by default, not installed.
noinst_DATA += contrib/dcpi-push.service
CLEANFILES += contrib/dcpi-push.service
EXTRA_DIST += contrib/dcpi-push.service.in contrib/dcpi-push.timer

contrib_edit = $(SED) -e 's|@sbindir[@]|$(sbindir)|g' -e 's|@bindir[@]|$(bindir)|g' \
	-e 's|@sysconfdir[@]|$(sysconfdir)|g'
contrib/dcpid.service contrib/dcpi-epoch.service contrib/dcpi.cron contrib/dcpi-push.service: Makefile
	$(AM_V_GEN)$(MKDIR_P) contrib && rm -f $@ $@.tmp && \
	$(contrib_edit) $(srcdir)/$@.in >$@.tmp && mv $@.tmp $@
contrib/dcpid.service: $(srcdir)/contrib/dcpid.service.in
contrib/dcpi-epoch.service: $(srcdir)/contrib/dcpi-epoch.service.in
contrib/dcpi.cron: $(srcdir)/contrib/dcpi.cron.in
contrib/dcpi-push.service: $(srcdir)/contrib/dcpi-push.service.in

# cron ignores files with a dot in their names, sysusers.d wants .conf, and
# an administrator's dcpid.conf is never overwritten.
crondir = $(sysconfdir)/cron.d
sysusersdir = $(prefix)/lib/sysusers.d
dcpiconfdir = $(sysconfdir)/dcpi
install-data-local: contrib-install-data-local
uninstall-local: contrib-uninstall-local
contrib-install-data-local: contrib/dcpi.cron
	$(MKDIR_P) '$(DESTDIR)$(crondir)' '$(DESTDIR)$(sysusersdir)' '$(DESTDIR)$(dcpiconfdir)'
	$(INSTALL_DATA) contrib/dcpi.cron '$(DESTDIR)$(crondir)/dcpi'
	$(INSTALL_DATA) $(srcdir)/contrib/dcpi.sysusers '$(DESTDIR)$(sysusersdir)/dcpi.conf'
	@if test -e '$(DESTDIR)$(dcpiconfdir)/dcpid.conf'; then \
		echo 'keeping $(DESTDIR)$(dcpiconfdir)/dcpid.conf'; \
	else \
		echo " $(INSTALL_DATA) $(srcdir)/contrib/dcpid.conf '$(DESTDIR)$(dcpiconfdir)/dcpid.conf'"; \
		$(INSTALL_DATA) $(srcdir)/contrib/dcpid.conf '$(DESTDIR)$(dcpiconfdir)/dcpid.conf'; \
	fi
# The configuration goes only if it is still the example.
contrib-uninstall-local:
	rm -f '$(DESTDIR)$(crondir)/dcpi' '$(DESTDIR)$(sysusersdir)/dcpi.conf'
	@if cmp -s $(srcdir)/contrib/dcpid.conf '$(DESTDIR)$(dcpiconfdir)/dcpid.conf'; then \
		echo " rm -f '$(DESTDIR)$(dcpiconfdir)/dcpid.conf'"; \
		rm -f '$(DESTDIR)$(dcpiconfdir)/dcpid.conf'; \
	elif test -e '$(DESTDIR)$(dcpiconfdir)/dcpid.conf'; then \
		echo 'keeping $(DESTDIR)$(dcpiconfdir)/dcpid.conf: it was changed'; \
	fi
.PHONY: contrib-install-data-local contrib-uninstall-local
