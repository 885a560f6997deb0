/* Scratch sysroot trees for unit tests: tree_new() makes a directory under
 * /tmp, tree_put() writes files (creating parents), tree_free() removes it. */
#ifndef ROCMCHECK_TEST_SR_TREE_H
#define ROCMCHECK_TEST_SR_TREE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts.h"
#include "util.h"

static inline char *tree_new(void)
{
	char *dir = xstrdup("/tmp/rctree.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	return dir;
}

static inline void tree_mkdir(const char *root, const char *rel)
{
	char *cmd = xasprintf("mkdir -p '%s/%s'", root, rel);
	if (system(cmd))
		abort();
	free(cmd);
}

static inline void tree_putn(const char *root, const char *rel, const char *data, size_t len)
{
	char *p = xasprintf("%s/%s", root, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	char *cmd = xasprintf("mkdir -p '%s'", p);
	if (system(cmd))
		abort();
	free(cmd);
	*slash = '/';
	FILE *f = fopen(p, "w");
	if (!f)
		abort();
	fwrite(data, 1, len, f);
	fclose(f);
	free(p);
}

static inline void tree_put(const char *root, const char *rel, const char *text)
{
	tree_putn(root, rel, text, strlen(text));
}

static inline void tree_link(const char *root, const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	if (symlink(target, p))
		abort();
	free(p);
}

static inline void tree_free(char *root)
{
	char *cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd))
		abort();
	free(cmd);
	free(root);
}

/* Open `root` as a sysroot and point a zeroed `f` at it. */
static inline void tree_facts(const char *root, struct sysroot *sr, struct facts *f)
{
	if (sysroot_open(sr, root))
		abort();
	memset(f, 0, sizeof(*f));
	f->sr = sr;
}

#endif
