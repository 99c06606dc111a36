/*
 * Shared by dcpictl's analysis commands (prof, list, diff, epochs, gc,
 * export): selection of epochs/hosts/events/images (selection.h), the
 * symbol table cache (symcache.h), per-procedure aggregation (rows.h) and
 * table output as text, CSV or JSON (output.h).
 */
#ifndef DCPICTL_ANALYSIS_H
#define DCPICTL_ANALYSIS_H

#include "output.h"
#include "rows.h"
#include "selection.h"
#include "symcache.h"

#endif
