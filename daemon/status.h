/*
 * dcpid's STATUS lines (daemon/status.c): each module writes its own
 * (loss_status, attr_status, label_status, ...), called here in the order
 * that dcpictl status shows and its readers rely on; control.c adds its
 * own at the end.
 */
#ifndef DCPID_STATUS_H
#define DCPID_STATUS_H

struct status_writer;

/* control_ops.status: every line but control.c's. */
void status_report(struct status_writer *w);

#endif
