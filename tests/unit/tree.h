/* Scratch sysroots for unit tests: tree_new() makes a mkdtemp() directory
 * under /tmp, tree_put()/tree_putn()/tree_mkdirs()/tree_link() fill it
 * (creating parents), tree_open() opens it as a sysroot with an empty facts
 * struct on it, tree_close() releases both (so a test may change the tree
 * and open it again), tree_free() removes everything.
 *
 * Include after <cmocka.h>: failures are cmocka assertions. */
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

/* Run "VERB 'DIR/REL'" ("VERB 'DIR'" when rel is NULL). */
static inline void tree_sh(const char *verb, const char *dir, const char *rel)
{
	char *cmd = xasprintf("%s '%s%s%s'", verb, dir, rel ? "/" : "", rel ? rel : "");
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static inline void tree_mkdirs(struct tree *t, const char *rel)
{
	tree_sh("mkdir -p", t->dir, rel);
}

/* The absolute host path of `rel`, its parent directories created. */
static inline char *tree_path_mkparents(struct tree *t, const char *rel)
{
	char *p = xasprintf("%s/%s", t->dir, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	tree_sh("mkdir -p", p, NULL);
	*slash = '/';
	return p;
}

/* Write `len` bytes (NULs allowed) to `rel`, replacing what was there. */
static inline void tree_putn(struct tree *t, const char *rel, const char *data, size_t len)
{
	char *p = tree_path_mkparents(t, rel);
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	free(p);
}

static inline void tree_put(struct tree *t, const char *rel, const char *content)
{
	tree_putn(t, rel, content, strlen(content));
}

/* Make `rel` a symlink to `target` (written as given: absolute targets are
 * re-rooted by the sysroot layer). */
static inline void tree_link(struct tree *t, const char *target, const char *rel)
{
	char *p = tree_path_mkparents(t, rel);
	assert_int_equal(symlink(target, p), 0);
	free(p);
}

static inline void tree_chmod(struct tree *t, const char *rel, mode_t mode)
{
	char *p = xasprintf("%s/%s", t->dir, rel);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

/* Remove `rel` (a file, a link or a whole directory). */
static inline void tree_rm(struct tree *t, const char *rel)
{
	tree_sh("rm -rf", t->dir, rel);
}

static inline void tree_new(struct tree *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/tmp/rctree.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
}

/* Open the tree as a sysroot and set up an empty facts struct on it. */
static inline struct facts *tree_open(struct tree *t)
{
	assert_false(t->opened);
	assert_int_equal(sysroot_open(&t->sr, t->dir), 0);
	memset(&t->f, 0, sizeof(t->f));
	t->f.sr = &t->sr;
	t->f.rocm.active = -1;
	t->f.cuda.active = -1;
	t->opened = true;
	return &t->f;
}

/* Release the facts and the sysroot; the files stay. */
static inline void tree_close(struct tree *t)
{
	if (!t->opened)
		return;
	facts_release(&t->f);
	sysroot_release(&t->sr);
	t->opened = false;
}

static inline void tree_free(struct tree *t)
{
	tree_close(t);
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
