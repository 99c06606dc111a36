/*
 * Demangling of C++ and Rust names: dcpi_demangle (lib/dcpi/symbol.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/symbol.h>

#include "sym_int.h"

/* libstdc++'s demangler (cxxabi.h is C++ only). */
char *__cxa_demangle(const char *, char *, size_t *, int *);


/* Rust legacy escapes left in the Itanium demangling. */
static void
rust_unescape(char *s)
{
	static const struct { const char *from, *to; } esc[] = {
		{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" },
		{ "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
		{ "$u7e$", "~" }, { "$u20$", " " }, { "$u27$", "'" }, { "$u5b$", "[" },
		{ "$u5d$", "]" }, { "$u7b$", "{" }, { "$u7d$", "}" }, { "$u3b$", ";" },
		{ "$u2b$", "+" }, { "$u22$", "\"" }, { "..", "::" },
	};
	char *r = s, *w = s;
	size_t i, l;

	while (*r != '\0') {
		/* rustc prefixes '_' to a component that starts with '$'. */
		if (r[0] == '_' && r[1] == '$' && (w == s || w[-1] == ':')) {
			r++;
			continue;
		}
		for (i = 0; i < sizeof(esc) / sizeof(esc[0]); i++) {
			l = strlen(esc[i].from);
			if (strncmp(r, esc[i].from, l) == 0)
				break;
		}
		if (i < sizeof(esc) / sizeof(esc[0])) {
			/* Every replacement is no longer than what it replaces. */
			memcpy(w, esc[i].to, strlen(esc[i].to));
			w += strlen(esc[i].to);
			r += l;
		} else
			*w++ = *r++;
	}
	*w = '\0';
}

char *
dcpi_demangle(const char *name)
{
	char *d;
	size_t l;
	int status, i;

	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (d == NULL || status != 0) {
		if (status == -1)
			errno = ENOMEM;
		free(d);
		return NULL;
	}
	/* Rust legacy: the last path component is "h" and 16 hex digits. */
	l = strlen(d);
	if (l > 19 && strncmp(d + l - 19, "::h", 3) == 0) {
		for (i = 0; i < 16 && isxdigit((unsigned char)d[l - 16 + i]); i++)
			;
		if (i == 16) {
			d[l - 19] = '\0';
			rust_unescape(d);
		}
	}
	return d;
}
