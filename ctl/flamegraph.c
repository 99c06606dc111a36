/*
 * dcpictl flamegraph: the folded stacks of dcpictl stacks drawn as one
 * self-contained, interactive SVG file, as flamegraph.pl draws them: the
 * root at the bottom, a frame's width its share of the samples, click to
 * zoom, search by regular expression.  Nothing outside the file is
 * loaded, so that it can be mailed or archived and still work.  With
 * --diff A B, B's graph with each frame coloured by the change of its
 * share since A where the change is significant (ctl/stats_math.h), grey
 * where it is not.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/file.h>

#include "analysis.h"
#include "commands.h"
#include "stacks.h"
#include "stats_math.h"
#include "util.h"
#include "xmalloc.h"

/* flamegraph.pl's geometry, so that the pictures look alike. */
#define XPAD		10		/* left and right margin, px */
#define FRAME_H		16		/* a row, px */
#define FONT_SIZE	12
#define FONT_W		0.59		/* a glyph's width in font sizes (Verdana) */
#define YPAD_TOP	(FONT_SIZE * 3)	/* the title and the controls */
#define YPAD_BOTTOM	(FONT_SIZE * 2 + 10)	/* the details line */
/* Narrower frames are left out: they cannot be seen or clicked, and a
 * profile of many small stacks would otherwise be mostly invisible rects. */
#define MIN_W		0.1

/* A frame of the graph: a name at a depth spanning samples [x, x + w) of
 * the root's, after flamegraph.pl's flow(). */
struct node {
	const char	*name;
	uint64_t	 x, w;
	uint32_t	 depth;		/* 0: the root, "all" */
	size_t		 stack;		/* a stack through it (the path's frames) */
};

struct stack {
	char		**frame;	/* root first, into text */
	size_t		 n;
	uint64_t	 count;
	char		*text;		/* the folded line, ';' made NUL */
};

/* Folded text compared frame by frame: the end of a frame (';' or the
 * end of the line) sorts before any byte, so that the stacks sharing a
 * prefix of frames are adjacent and merge into one frame each. */
static int
stack_cmp(const void *a, const void *b)
{
	const struct stack *x = a, *y = b;
	size_t i;
	int c;

	for (i = 0; i < x->n && i < y->n; i++)
		if ((c = strcmp(x->frame[i], y->frame[i])) != 0)
			return c;
	return x->n < y->n ? -1 : x->n > y->n;
}

static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* The frames of the folded stacks f: one per distinct path from the root,
 * children in name order.  *total: the samples, *depth: the rows. */
static struct node *
layout(const struct stacks_folded *f, struct stack *st, size_t *n_nodes, uint64_t *total,
    uint32_t *depth)
{
	struct node *v = NULL, *open = NULL;
	size_t n = 0, cap = 0, i, k, common, prev = 0, max = 0;
	uint64_t x = 0;
	char *p;

	for (i = 0; i < f->n; i++) {
		st[i].text = xstrdup(f->v[i].text);
		st[i].count = f->v[i].count;
		st[i].n = 1;
		for (p = st[i].text; *p; p++)
			st[i].n += *p == ';';
		st[i].frame = xreallocarray(NULL, st[i].n, sizeof(char *));
		st[i].frame[0] = st[i].text;
		for (k = 1, p = st[i].text; *p; p++)
			if (*p == ';') {
				*p = '\0';
				st[i].frame[k++] = p + 1;
			}
		if (st[i].n > max)
			max = st[i].n;
	}
	qsort(st, f->n, sizeof(*st), stack_cmp);
	open = xcalloc(max + 1, sizeof(*open));
	for (i = 0; i <= f->n; i++) {
		/* Frames not shared with this stack end at x. */
		common = 0;
		if (i < f->n)
			while (common < prev && common < st[i].n &&
			    strcmp(open[common].name, st[i].frame[common]) == 0)
				common++;
		for (k = prev; k-- > common;) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				v = xreallocarray(v, cap, sizeof(*v));
			}
			v[n] = open[k];
			v[n++].w = x - open[k].x;
		}
		if (i == f->n)
			break;
		for (k = common; k < st[i].n; k++) {
			open[k].name = st[i].frame[k];
			open[k].x = x;
			open[k].depth = (uint32_t)k + 1;
			open[k].stack = i;
		}
		prev = st[i].n;
		x = add_sat(x, st[i].count);
	}
	free(open);
	*n_nodes = n;
	*total = x;
	*depth = (uint32_t)max + 1;
	return v;
}

/* A path from the root: the bytes of a stack's text up to the end of a
 * frame (NUL between frames), with the samples of the stacks through it. */
struct path {
	const char	*p;
	size_t		 len;
	uint64_t	 n;
};

static int
path_cmp(const void *a, const void *b)
{
	const struct path *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->p, y->p, x->len);
}

static size_t
path_len(const struct stack *st, uint32_t depth)
{
	return (size_t)(st->frame[depth - 1] - st->text) + strlen(st->frame[depth - 1]);
}

/* Every path of the n stacks st with its samples, sorted for path_n. */
static struct path *
paths(const struct stack *st, size_t n, size_t *n_paths)
{
	struct path *v = NULL;
	size_t i, k, m = 0, cap = 0;

	for (i = 0; i < n; i++)
		for (k = 1; k <= st[i].n; k++) {
			if (m == cap) {
				cap = cap ? 2 * cap : 256;
				v = xreallocarray(v, cap, sizeof(*v));
			}
			v[m].p = st[i].text;
			v[m].len = path_len(&st[i], (uint32_t)k);
			v[m++].n = st[i].count;
		}
	if (m > 1)
		qsort(v, m, sizeof(*v), path_cmp);
	for (i = k = 0; i < m; i++)
		if (k > 0 && path_cmp(&v[k - 1], &v[i]) == 0)
			v[k - 1].n = add_sat(v[k - 1].n, v[i].n);
		else
			v[k++] = v[i];
	*n_paths = k;
	return v;
}

static uint64_t
path_n(const struct path *v, size_t n, const char *p, size_t len)
{
	struct path key = { p, len, 0 }, *f;

	f = n ? bsearch(&key, v, n, sizeof(*v), path_cmp) : NULL;
	return f != NULL ? f->n : 0;
}

/* --diff: side A's paths against the graph's (B's). */
struct fgdiff {
	struct stack	*st;		/* A's stacks, which paths point into */
	size_t		 n_st;
	struct path	*paths;
	size_t		 n_paths;
	uint64_t	 total;
	double		 level;
};

/*
 * name as valid UTF-8 text for the XML file: a byte that begins no valid
 * sequence (symbol names are bytes, not text) and a control byte, which
 * XML 1.0 does not allow even as a reference, become \xHH, as the tables
 * print them (text_len).  Allocated.
 */
static char *
utf8_clean(const char *name)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)name;
	size_t len = strlen(name), i, n;
	char *out = xreallocarray(NULL, len * 4 + 1, 1), *o = out;

	for (i = 0; i < len; i += n) {
		n = text_len(s + i);
		/* XML 1.0 has no U+FFFE and U+FFFF either. */
		if (n == 3 && s[i] == 0xef && s[i + 1] == 0xbf && s[i + 2] >= 0xbe)
			n = 0;
		if (n == 0) {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[s[i] >> 4];
			*o++ = hex[s[i] & 0xf];
			n = 1;
		} else {
			memcpy(o, s + i, n);
			o += n;
		}
	}
	*o = '\0';
	return out;
}

/* s (valid UTF-8) as XML character data or an attribute's value. */
static void
xml_puts(const char *s, size_t len, FILE *fp)
{
	size_t i;

	for (i = 0; i < len; i++)
		switch (s[i]) {
		case '&':	fputs("&amp;", fp); break;
		case '<':	fputs("&lt;", fp); break;
		case '>':	fputs("&gt;", fp); break;
		case '"':	fputs("&quot;", fp); break;
		default:	putc(s[i], fp);
		}
}

/* The label of a frame w px wide: the name, else as many of its first
 * characters as fit and "..", else nothing (the script's clip() too). */
static void
label_puts(const char *name, double w, FILE *fp)
{
	double fit = (w - 6) / (FONT_SIZE * FONT_W);
	size_t chars = 0, len;
	const char *p;

	for (p = name; *p; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	if (fit < 3)
		return;
	if ((double)chars <= fit) {
		xml_puts(name, strlen(name), fp);
		return;
	}
	/* The first fit - 2 characters, cut at a character's start. */
	chars = (size_t)fit - 2;
	for (p = name; *p && chars > 0; chars--)
		for (p++; ((unsigned char)*p & 0xc0) == 0x80; p++)
			;
	len = (size_t)(p - name);
	xml_puts(name, len, fp);
	fputs("..", fp);
}

/* flamegraph.pl's "hot" palette: reds to yellows, by a hash of the name
 * so that a procedure has one colour in every graph. */
static void
colour(const char *name, unsigned *r, unsigned *g, unsigned *b)
{
	uint64_t h = fnv1a64_str(FNV1A64_INIT, name);

	*r = 205 + (unsigned)((h & 0xff) * 50 / 255);
	*g = (unsigned)((h >> 8 & 0xff) * 230 / 255);
	*b = (unsigned)((h >> 16 & 0xff) * 55 / 255);
}

/*
 * The script: zoom (click a frame: its subtree fills the width, its
 * ancestors are drawn faded at full width, the rest hidden; "Reset Zoom"),
 * search (a regular expression: matching frames in magenta, the share of
 * the samples under them, nested matches counted once), the hovered
 * frame's title in the details line, and the URL's fragment: #zoom=NAME
 * zooms into the first frame named NAME and #search=RE searches, so that
 * a link can show a view (and the tests can drive the script).
 */
static const char script[] =
"\"use strict\";\n"
"var svg, frames, details, matched, searchbtn, unzoombtn, total, avail;\n"
"var searching = false;\n"
"function init(evt) {\n"
"	svg = document.documentElement;\n"
"	frames = document.getElementById(\"frames\");\n"
"	details = document.getElementById(\"details\");\n"
"	matched = document.getElementById(\"matched\");\n"
"	searchbtn = document.getElementById(\"search\");\n"
"	unzoombtn = document.getElementById(\"unzoom\");\n"
"	total = +frames.getAttribute(\"data-total\");\n"
"	avail = +svg.getAttribute(\"width\") - 2 * XPAD;\n"
"	frames.addEventListener(\"click\", function (e) {\n"
"		var g = frameof(e.target);\n"
"		if (g) zoom(g);\n"
"	});\n"
"	frames.addEventListener(\"mouseover\", function (e) {\n"
"		var g = frameof(e.target);\n"
"		if (g) details.textContent = title(g);\n"
"	});\n"
"	frames.addEventListener(\"mouseout\", function () { details.textContent = \" \"; });\n"
"	unzoombtn.addEventListener(\"click\", unzoom);\n"
"	searchbtn.addEventListener(\"click\", function () {\n"
"		if (searching) { resetsearch(); return; }\n"
"		var re = prompt(\"Search for (regular expression):\", \"\");\n"
"		if (re) search(re);\n"
"	});\n"
"	var h = decodeURIComponent(location.hash.slice(1)), m, g;\n"
"	if ((m = /^zoom=([^]*)$/.exec(h)) !== null) {\n"
"		if ((g = find(m[1])) !== null) zoom(g);\n"
"	} else if ((m = /^search=([^]*)$/.exec(h)) !== null)\n"
"		search(m[1]);\n"
"}\n"
"function frameof(n) {\n"
"	for (; n && n !== frames; n = n.parentNode)\n"
"		if (n.parentNode === frames) return n;\n"
"	return null;\n"
"}\n"
"function title(g) { return g.getElementsByTagName(\"title\")[0].textContent; }\n"
"function name(g) { return title(g).replace(/( \\[[^\\]]*\\])? \\(\\d+ samples, [0-9.]+%\\)$/, \"\"); }\n"
"function num(g, a) { return +g.getAttribute(a); }\n"
"function find(n) {\n"
"	for (var g = frames.firstElementChild; g; g = g.nextElementSibling)\n"
"		if (name(g) === n) return g;\n"
"	return null;\n"
"}\n"
"function clip(t, n, w) {\n"
"	var fit = Math.floor((w - 6) / (FONT_SIZE * FONT_W)), c = Array.from(n);\n"
"	t.textContent = fit < 3 ? \"\" : c.length <= fit ? n : c.slice(0, fit - 2).join(\"\") + \"..\";\n"
"}\n"
"function place(g, x, w) {\n"
"	var r = g.getElementsByTagName(\"rect\")[0], t = g.getElementsByTagName(\"text\")[0];\n"
"	r.setAttribute(\"x\", x.toFixed(1));\n"
"	r.setAttribute(\"width\", w.toFixed(1));\n"
"	t.setAttribute(\"x\", (x + 3).toFixed(1));\n"
"	clip(t, name(g), w);\n"
"}\n"
"function zoom(z) {\n"
"	var zx = num(z, \"data-x\"), zw = num(z, \"data-w\"), zd = num(z, \"data-d\");\n"
"	for (var g = frames.firstElementChild; g; g = g.nextElementSibling) {\n"
"		var x = num(g, \"data-x\"), w = num(g, \"data-w\"), d = num(g, \"data-d\");\n"
"		if (d < zd && x <= zx && x + w >= zx + zw) {\n"
"			place(g, XPAD, avail);\n"
"			g.setAttribute(\"class\", \"parent\");\n"
"		} else if (d >= zd && x >= zx && x + w <= zx + zw) {\n"
"			place(g, XPAD + (x - zx) / zw * avail, w / zw * avail);\n"
"			g.removeAttribute(\"class\");\n"
"		} else\n"
"			g.setAttribute(\"class\", \"hide\");\n"
"	}\n"
"	unzoombtn.removeAttribute(\"class\");\n"
"}\n"
"function unzoom() {\n"
"	for (var g = frames.firstElementChild; g; g = g.nextElementSibling) {\n"
"		place(g, XPAD + num(g, \"data-x\") / total * avail, num(g, \"data-w\") / total * avail);\n"
"		g.removeAttribute(\"class\");\n"
"	}\n"
"	unzoombtn.setAttribute(\"class\", \"hide\");\n"
"}\n"
"function search(re) {\n"
"	var rx, spans = [], sum = 0, end = 0;\n"
"	try { rx = new RegExp(re); } catch (e) { matched.textContent = \"Bad expression: \" + e.message; return; }\n"
"	resetsearch();\n"
"	for (var g = frames.firstElementChild; g; g = g.nextElementSibling) {\n"
"		if (!rx.test(name(g))) continue;\n"
"		var r = g.getElementsByTagName(\"rect\")[0];\n"
"		r.setAttribute(\"data-fill\", r.getAttribute(\"fill\"));\n"
"		r.setAttribute(\"fill\", \"rgb(230,0,230)\");\n"
"		spans.push([num(g, \"data-x\"), num(g, \"data-x\") + num(g, \"data-w\")]);\n"
"	}\n"
"	spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"	spans.forEach(function (s) {\n"
"		if (s[1] > end) { sum += s[1] - Math.max(s[0], end); end = s[1]; }\n"
"	});\n"
"	matched.textContent = \"Matched: \" + (total ? 100 * sum / total : 0).toFixed(2) + \"%\";\n"
"	searchbtn.textContent = \"Reset Search\";\n"
"	searching = true;\n"
"}\n"
"function resetsearch() {\n"
"	for (var g = frames.firstElementChild; g; g = g.nextElementSibling) {\n"
"		var r = g.getElementsByTagName(\"rect\")[0];\n"
"		if (r.hasAttribute(\"data-fill\")) {\n"
"			r.setAttribute(\"fill\", r.getAttribute(\"data-fill\"));\n"
"			r.removeAttribute(\"data-fill\");\n"
"		}\n"
"	}\n"
"	matched.textContent = \" \";\n"
"	searchbtn.textContent = \"Search\";\n"
"	searching = false;\n"
"}\n";

/* One frame: a group with the samples it spans (the script's zoom works
 * from them, not from pixels), its title, rect and label; with --diff
 * its colour rgb and the change in note ("[...]", after the name). */
static void
put_node(const struct node *nd, uint64_t total, unsigned width, uint32_t rows,
    const unsigned *rgb, const char *note, FILE *fp)
{
	double avail = width - 2 * XPAD, x, w, y;
	unsigned r, g, b;
	char *name;

	x = XPAD + (double)nd->x / (double)total * avail;
	w = (double)nd->w / (double)total * avail;
	if (w < MIN_W)
		return;
	y = YPAD_TOP + (double)(rows - 1 - nd->depth) * FRAME_H;
	name = utf8_clean(nd->name);
	if (rgb != NULL) {
		r = rgb[0];
		g = rgb[1];
		b = rgb[2];
	} else
		colour(nd->name, &r, &g, &b);
	fprintf(fp, "<g data-x=\"%llu\" data-w=\"%llu\" data-d=\"%u\"><title>",
	    (unsigned long long)nd->x, (unsigned long long)nd->w, nd->depth);
	xml_puts(name, strlen(name), fp);
	if (note != NULL)
		fprintf(fp, " %s", note);
	fprintf(fp, " (%llu samples, %.2f%%)</title>", (unsigned long long)nd->w,
	    100.0 * (double)nd->w / (double)total);
	fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
	    "fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/>", x, y, w, FRAME_H - 1, r, g, b);
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FRAME_H - 5.5);
	label_puts(name, w, fp);
	fputs("</text></g>\n", fp);
	free(name);
}

/*
 * --diff's colours: each frame's share of B's samples against its path's
 * of A's by the two-proportion z-test, Benjamini-Hochberg over the frames;
 * where q <= level red for more, blue for less, the deeper the larger the
 * change against the largest; grey elsewhere.  rgb[3 n], note[n] (each
 * malloc'd) for the n frames v.
 */
static void
diff_colours(const struct fgdiff *dd, const struct stack *st, const struct node *v,
    size_t n, uint64_t total, unsigned *rgb, char **note)
{
	struct stats_change *c = xcalloc(n + 1, sizeof(*c));
	double *q = xcalloc(n + 1, sizeof(*q)), max = 0, k;
	const struct stack *s;
	uint64_t xa;
	size_t i;

	for (i = 0; i < n; i++) {
		s = &st[v[i].stack];
		xa = path_n(dd->paths, dd->n_paths, s->text, path_len(s, v[i].depth));
		if (stats_prop2(xa, dd->total, v[i].w, total, 1 - dd->level, &c[i]) == -1)
			c[i].p = 1;	/* a saturated count: no test */
		q[i] = c[i].p;
	}
	stats_bh(q, n, q);
	for (i = 0; i < n; i++)
		if (q[i] <= dd->level && fabs(c[i].delta) > max)
			max = fabs(c[i].delta);
	for (i = 0; i < n; i++) {
		xasprintf(&note[i], "[%+.2f points, q %.3g]", 100 * c[i].delta, q[i]);
		if (!(q[i] <= dd->level)) {
			rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = 200;
			continue;
		}
		k = 0.25 + 0.75 * fabs(c[i].delta) / max;	/* even the least shows */
		rgb[3 * i] = c[i].delta > 0 ? 255 : (unsigned)(255 * (1 - k));
		rgb[3 * i + 1] = (unsigned)(255 * (1 - k));
		rgb[3 * i + 2] = c[i].delta > 0 ? (unsigned)(255 * (1 - k)) : 255;
	}
	free(c);
	free(q);
}

/* The whole SVG document of the folded stacks f into fp; with dd, B's of
 * --diff. */
static void
put_svg(const struct stacks_folded *f, const struct fgdiff *dd, const char *title,
    unsigned width, FILE *fp)
{
	unsigned *rgb = NULL;
	char **note = NULL;
	struct stack *st = xcalloc(f->n + 1, sizeof(*st));
	struct node *v, root;
	uint64_t total;
	uint32_t rows;
	size_t n, i;
	unsigned height;
	char *t;

	v = layout(f, st, &n, &total, &rows);
	if (dd != NULL) {
		rgb = xcalloc(3 * n + 1, sizeof(*rgb));
		note = xcalloc(n + 1, sizeof(*note));
		diff_colours(dd, st, v, n, total, rgb, note);
	}
	height = YPAD_TOP + rows * FRAME_H + YPAD_BOTTOM;
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
	    "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
	    "xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n",
	    width, height, width, height);
	fprintf(fp, "<style type=\"text/css\">\n"
	    "text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }\n"
	    "#title { font-size: 17px; }\n"
	    "#frames g:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
	    "#frames rect, #frames text { cursor: pointer; }\n"
	    "#frames text { pointer-events: none; }\n"
	    ".hide { display: none; }\n"
	    ".parent { opacity: 0.5; }\n"
	    "#unzoom, #search { cursor: pointer; }\n"
	    "</style>\n", FONT_SIZE);
	fprintf(fp, "<script type=\"text/ecmascript\"><![CDATA[\n"
	    "var XPAD = %d, FONT_SIZE = %d, FONT_W = %g;\n%s]]></script>\n",
	    XPAD, FONT_SIZE, FONT_W, script);
	fprintf(fp, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" "
	    "x2=\"0\"><stop stop-color=\"#eeeeee\" offset=\"5%%\"/><stop "
	    "stop-color=\"#eeeeb0\" offset=\"95%%\"/></linearGradient></defs>\n"
	    "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#background)\"/>\n",
	    width, height);
	fprintf(fp, "<text id=\"title\" x=\"%.1f\" y=\"24\" text-anchor=\"middle\">",
	    width / 2.0);
	t = utf8_clean(title);
	xml_puts(t, strlen(t), fp);
	free(t);
	fprintf(fp, "</text>\n<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset "
	    "Zoom</text>\n<text id=\"search\" x=\"%d\" y=\"24\" text-anchor=\"end\">"
	    "Search</text>\n", XPAD, width - XPAD);
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n<text id=\"matched\" "
	    "x=\"%d\" y=\"%u\" text-anchor=\"end\"> </text>\n", XPAD, height - 17,
	    width - XPAD, height - 17);
	fprintf(fp, "<g id=\"frames\" data-total=\"%llu\">\n", (unsigned long long)total);
	memset(&root, 0, sizeof(root));
	root.name = "all";
	root.w = total;
	put_node(&root, total, width, rows, dd != NULL ? (const unsigned[]){ 200, 200, 200 } :
	    NULL, NULL, fp);
	for (i = 0; i < n; i++)
		put_node(&v[i], total, width, rows, rgb ? &rgb[3 * i] : NULL,
		    note ? note[i] : NULL, fp);
	fputs("</g>\n</svg>\n", fp);
	for (i = 0; note != NULL && i < n; i++)
		free(note[i]);
	free(note);
	free(rgb);
	for (i = 0; i < f->n; i++) {
		free(st[i].text);
		free(st[i].frame);
	}
	free(st);
	free(v);
}

#define OPT_IMAGE_NAMES	0x200
#define OPT_TITLE	0x201
#define OPT_WIDTH	0x202
#define OPT_DIFF	0x203
#define OPT_SIGNIFICANT	0x204

int
cmd_flamegraph(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "image-names", no_argument,		NULL, OPT_IMAGE_NAMES },
		{ "title",	required_argument,	NULL, OPT_TITLE },
		{ "width",	required_argument,	NULL, OPT_WIDTH },
		{ "diff",	no_argument,		NULL, OPT_DIFF },
		{ "significant", required_argument,	NULL, OPT_SIGNIFICANT },
		{ "output",	required_argument,	NULL, 'o' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct selection s;
	struct stacks_folded f;
	struct dcpi_error err;
	const char *out = NULL, *title = NULL;
	char *buf = NULL, *deftitle = NULL, *end;
	size_t len = 0;
	unsigned long width = 1200;
	int ch, image_names = 0, r = 0, diff = 0;
	struct fgdiff dd;
	struct stacks_folded fa;
	struct selection sa;
	struct node *va;
	size_t n_va;
	uint32_t rows_a;
	FILE *fp;

	memset(&s, 0, sizeof(s));
	memset(&dd, 0, sizeof(dd));
	memset(&fa, 0, sizeof(fa));
	dd.level = 0.05;
	while ((ch = sel_getopt(argc, argv, "e:o:h", opts, SEL_EPOCHS | SEL_HOST |
	    SEL_EVENTS | SEL_LABEL | SEL_IDLE, &s, "flamegraph")) != -1) {
		switch (ch) {
		case SEL_BAD:
			return 2;
		case OPT_IMAGE_NAMES:
			image_names = 1;
			break;
		case OPT_TITLE:
			title = optarg;
			break;
		case OPT_DIFF:
			diff = 1;
			break;
		case OPT_SIGNIFICANT:
			dd.level = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || !(dd.level > 0 && dd.level < 1)) {
				fprintf(stderr, "dcpictl: flamegraph: --significant %s: expected "
				    "a level between 0 and 1 (0.05)\n", optarg);
				return 2;
			}
			break;
		case OPT_WIDTH:
			errno = 0;
			width = strtoul(optarg, &end, 10);
			/* Narrower than the controls overlap; wider is no
			 * screen's. */
			if (errno != 0 || end == optarg || *end != '\0' || width < 200 ||
			    width > 100000) {
				fprintf(stderr, "dcpictl: flamegraph: --width '%s': expected "
				    "pixels, 200 to 100000\n", optarg);
				return 2;
			}
			break;
		case 'o':
			out = optarg;
			break;
		default:
			return cmd_usage(ch == 'h',
			    "usage: dcpictl flamegraph [--image-names] [-e EVENT] [--epoch E | --all | --since TIME]\n"
			    "                          [--host H] [--label GLOB]... [--idle]\n"
			    "                          [--title TITLE] [--width PX] -o FILE.svg\n"
			    "       dcpictl flamegraph --diff A B [--significant LEVEL] [options] -o FILE.svg\n");
		}
	}
	if (diff) {
		/* Two epochs: A's paths counted, B's graph drawn. */
		if (optind + 2 != argc || s.n_epochs > 0 || s.all || s.since != NULL) {
			fprintf(stderr, "dcpictl: flamegraph: --diff A B: two epochs, and no "
			    "--epoch, --all or --since\n");
			return 2;
		}
		sa = s;
		sa.epochs[0] = argv[optind];
		sa.n_epochs = 1;
		s.epochs[0] = argv[optind + 1];
		s.n_epochs = 1;
		optind += 2;
		if (stacks_fold(g->db, &sa, "flamegraph", image_names, &fa) == -1)
			return 1;
		dd.st = xcalloc(fa.n + 1, sizeof(*dd.st));
		va = layout(&fa, dd.st, &n_va, &dd.total, &rows_a);
		free(va);
		dd.n_st = fa.n;
		dd.paths = paths(dd.st, dd.n_st, &dd.n_paths);
	}
	if (optind != argc) {
		fprintf(stderr, "dcpictl: flamegraph: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (out == NULL) {
		fprintf(stderr, "dcpictl: flamegraph: no output file: -o FILE.svg (- for "
		    "standard output)\n");
		return 2;
	}
	memset(&f, 0, sizeof(f));
	if (stacks_fold(g->db, &s, "flamegraph", image_names, &f) == -1) {
		r = 1;
		goto done;
	}
	/* Stack files whose stacks are all of other labels: stacks prints
	 * nothing, but a graph of no samples has no widths to draw. */
	if (f.n == 0 || (diff && fa.n == 0)) {
		fprintf(stderr, "dcpictl: flamegraph: no call chains in the selection\n");
		r = 1;
		goto done;
	}
	if (diff && strcmp(f.event, fa.event) != 0) {
		fprintf(stderr, "dcpictl: flamegraph: --diff: %s's event is %s, %s's %s: "
		    "-e EVENT picks one\n", sa.epochs[0], fa.event, s.epochs[0], f.event);
		r = 1;
		goto done;
	}
	if (title == NULL) {
		if (diff)
			xasprintf(&deftitle, "Differential Flame Graph: %s, %s to %s (red: more, "
			    "blue: less, where Benjamini-Hochberg q <= %g; grey: not "
			    "significant)", f.event, sa.epochs[0], s.epochs[0], dd.level);
		else
			xasprintf(&deftitle, "Flame Graph: %s", f.event);
		title = deftitle;
	}
	/* In memory first: the file is replaced whole or not at all. */
	if ((fp = open_memstream(&buf, &len)) == NULL) {
		fprintf(stderr, "dcpictl: flamegraph: %s\n", strerror(errno));
		r = 1;
		goto done;
	}
	put_svg(&f, diff ? &dd : NULL, title, (unsigned)width, fp);
	if (fclose(fp) != 0) {
		fprintf(stderr, "dcpictl: flamegraph: %s\n", strerror(errno));
		r = 1;
	} else if (strcmp(out, "-") == 0) {
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0) {
			fprintf(stderr, "dcpictl: flamegraph: standard output: %s\n",
			    strerror(errno));
			r = 1;
		}
	} else if (dcpi_atomic_write(out, buf, len, 0644, &err) == -1) {
		fprintf(stderr, "dcpictl: flamegraph: %s\n", err.msg);
		r = 1;
	}
done:
	free(buf);
	free(deftitle);
	stacks_folded_free(&f);
	if (diff) {
		for (n_va = 0; n_va < dd.n_st; n_va++) {
			free(dd.st[n_va].text);
			free(dd.st[n_va].frame);
		}
		free(dd.st);
		free(dd.paths);
		stacks_folded_free(&fa);
	}
	return r;
}
