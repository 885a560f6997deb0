/* /etc/os-release (os-release(5)): shell-style KEY=value assignments. */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_line(const char *p)
{
	while (*p && *p != '\n')
		p++;
	return p;
}

/* One shell word: unquoted text with backslash escapes, '...' literal,
 * "..." with \" \\ \$ \` and \<newline> escapes, in any concatenation.
 * Stops at unquoted whitespace. Returns NULL on an unterminated quote. */
static char *shell_word(const char **pp)
{
	const char *p = *pp;
	struct strbuf sb = STRBUF_INIT;

	strbuf_init(&sb);
	while (*p && !isspace((unsigned char)*p)) {
		if (*p == '\'') {
			const char *end = strchr(p + 1, '\'');
			if (!end)
				goto bad;
			strbuf_add(&sb, p + 1, (size_t)(end - p - 1));
			p = end + 1;
		} else if (*p == '"') {
			p++;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1])) {
					if (p[1] != '\n')
						strbuf_addch(&sb, p[1]);
					p += 2;
					continue;
				}
				strbuf_addch(&sb, *p++);
			}
			if (*p != '"')
				goto bad;
			p++;
		} else if (*p == '\\') {
			if (p[1] && p[1] != '\n')
				strbuf_addch(&sb, p[1]);
			p += p[1] ? 2 : 1;
		} else {
			strbuf_addch(&sb, *p++);
		}
	}
	*pp = p;
	return strbuf_detach(&sb);
bad:
	strbuf_release(&sb);
	return NULL;
}

static char **os_field(struct os_facts *os, const char *key, size_t len)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
		{ "ID", offsetof(struct os_facts, id) },
		{ "ID_LIKE", offsetof(struct os_facts, id_like) },
		{ "VERSION_ID", offsetof(struct os_facts, version_id) },
		{ "VERSION_CODENAME", offsetof(struct os_facts, version_codename) },
		{ "PRETTY_NAME", offsetof(struct os_facts, pretty_name) },
		{ "NAME", offsetof(struct os_facts, name) },
		{ "VARIANT_ID", offsetof(struct os_facts, variant_id) },
	};
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (strlen(fields[i].key) == len && !strncmp(fields[i].key, key, len))
			return (char **)((char *)os + fields[i].off);
	return NULL;
}

int os_release_parse(const char *text, struct os_facts *os)
{
	const char *p = text ? text : "";
	int assignments = 0;

	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (*p == '#') {
			p = skip_line(p);
			continue;
		}
		const char *key = p;
		if (isalpha((unsigned char)*p) || *p == '_')
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
		size_t keylen = (size_t)(p - key);
		if (!keylen || *p != '=') {
			p = skip_line(p);       /* garbage line: tolerated */
			continue;
		}
		p++;
		const char *start = p;
		char *value = shell_word(&p);
		if (!value) {
			p = skip_line(start);  /* unterminated quote: drop it */
			continue;
		}
		assignments++;
		char **field = os_field(os, key, keylen);
		if (field) {
			free(*field);
			*field = facts_printable(value);
		} else {
			free(value);
		}
		p = skip_line(p);              /* a trailing comment or junk */
	}
	return assignments ? 0 : -EINVAL;
}

void facts_read_os(struct facts *f)
{
	static const char *const paths[] = { "/etc/os-release", "/usr/lib/os-release" };
	struct os_facts *os = &f->os;

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		char *text = NULL;
		size_t len = 0;
		int r = sysroot_read(f->sr, paths[i], &text, &len);
		if (r == -ENOENT)
			continue;
		free(os->path);
		os->path = xstrdup(paths[i]);
		if (r) {
			fact_errors_add(&f->errors, paths[i], "cannot be read: %s", strerror(-r));
		} else if (memchr(text, '\0', len)) {
			fact_errors_add(&f->errors, paths[i], "binary data, not KEY=value lines");
		} else if (os_release_parse(text, os)) {
			fact_errors_add(&f->errors, paths[i], "no KEY=value assignment found");
		} else {
			/* os-release(5) defaults for what a file leaves out */
			if (!os->id)
				os->id = xstrdup("linux");
			if (!os->name)
				os->name = xstrdup("Linux");
			if (!os->pretty_name)
				os->pretty_name = xstrdup("Linux");
			os->present = true;
		}
		free(text);
		return;  /* like systemd: the first file that exists decides */
	}
}
