#include "config.h"
#include <stdlib.h>
#include <dcpi/db.h>

const char *
dcpi_db_default(void)
{
	const char *s = getenv("DCPIDB");

	return s != NULL && *s ? s : DCPI_DB_DEFAULT;
}
