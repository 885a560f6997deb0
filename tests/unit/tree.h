/* Scratch sysroots for reader tests: a mkdtemp() directory the test fills
 * with files, directories and symlinks, then opens with sysroot_open(). */
#ifndef ROCMCHECK_TEST_TREE_H
#define ROCMCHECK_TEST_TREE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts.h"
#include "sysroot.h"
#include "util.h"

struct tree {
	char dir[64];
	struct sysroot sr;
	struct facts f;
	bool opened;
};

static inline void tree_mkdirs(struct tree *t, const char *rel)
{
	char *cmd = xasprintf("mkdir -p '%s/%s'", t->dir, rel);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static inline void tree_put(struct tree *t, const char *rel, const char *content)
{
	char *p = xasprintf("%s/%s", t->dir, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	char *cmd = xasprintf("mkdir -p '%s'", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	*slash = '/';
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(content, fp);
	fclose(fp);
	free(p);
}

/* Make `rel` a symlink to `target` (written as given: absolute targets are
 * re-rooted by the sysroot layer). */
static inline void tree_link(struct tree *t, const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", t->dir, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	char *cmd = xasprintf("mkdir -p '%s'", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	*slash = '/';
	assert_int_equal(symlink(target, p), 0);
	free(p);
}

static inline void tree_chmod(struct tree *t, const char *rel, mode_t mode)
{
	char *p = xasprintf("%s/%s", t->dir, rel);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

static inline void tree_new(struct tree *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/tmp/rcfacts.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
}

/* Open the tree as a sysroot and set up an empty facts struct on it. */
static inline struct facts *tree_open(struct tree *t)
{
	assert_int_equal(sysroot_open(&t->sr, t->dir), 0);
	memset(&t->f, 0, sizeof(t->f));
	t->f.sr = &t->sr;
	t->opened = true;
	return &t->f;
}

static inline void tree_free(struct tree *t)
{
	if (t->opened) {
		facts_release(&t->f);
		sysroot_release(&t->sr);
	}
	char *cmd = xasprintf("chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", t->dir, t->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", t->dir);
	free(cmd);
}

static inline bool has_error(const struct facts *f, const char *needle)
{
	for (size_t i = 0; i < f->errors.n; i++)
		if (strstr(f->errors.v[i].path, needle) || strstr(f->errors.v[i].message, needle))
			return true;
	return false;
}

#endif
