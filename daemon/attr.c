#include "config.h"
/* Not written yet. */
extern int dcpi_placeholder_attr;
