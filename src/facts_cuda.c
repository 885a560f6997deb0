/* CUDA toolkits: /usr/local/cuda and /usr/local/cuda-*, each counted once.
 * The version comes from version.json (CUDA 11.1 and later) or, for older
 * toolkits, version.txt ("CUDA Version 11.0.228"); wheel-built toolkits
 * have neither. */
#include "facts.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int cuda_version_json_parse(const char *text, char **version)
{
	json_error_t err;
	int ret = -EINVAL;

	*version = NULL;
	if (!text)
		return -EINVAL;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
	if (!root)
		return -EINVAL;
	json_t *cuda = json_object_get(root, "cuda");
	json_t *v = cuda ? json_object_get(cuda, "version") : NULL;
	if (json_is_string(v) && json_string_length(v) > 0 && json_string_length(v) < 64) {
		struct version pv;
		if (!version_parse(json_string_value(v), &pv)) {
			*version = xstrdup(json_string_value(v));
			ret = 0;
		}
	}
	json_decref(root);
	return ret;
}

/* "CUDA Version 11.0.228" -> "11.0.228". 0 or -EINVAL. */
static int cuda_version_txt_parse(const char *text, char **version)
{
	struct version v;

	*version = NULL;
	if (!str_startswith(text, "CUDA Version "))
		return -EINVAL;
	const char *s = text + 13;
	size_t n = strspn(s, "0123456789.");
	if (!n)
		return -EINVAL;
	*version = xstrndup(s, n);
	if (version_parse(*version, &v)) {
		free(*version);
		*version = NULL;
		return -EINVAL;
	}
	return 0;
}

/* "#define CUDART_VERSION 13000" -> "13.0" (1000 * major + 10 * minor). */
static char *cudart_version_header(const char *text)
{
	for (const char *p = strstr(text, "#define CUDART_VERSION"); p;
	     p = strstr(p + 1, "#define CUDART_VERSION")) {
		const char *s = p + 22;
		if (*s != ' ' && *s != '\t')
			continue;
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		if (end == s || v < 1000 || v > 99990)
			continue;
		return xasprintf("%lu.%lu", v / 1000, (v % 1000) / 10);
	}
	return NULL;
}

static void toolkit_version(struct facts *f, struct cuda_toolkit *tk)
{
	char *path = xasprintf("%s/version.json", tk->path);
	char *text = NULL;
	size_t len;
	int r = sysroot_read(f->sr, path, &text, &len);

	if (!r) {
		if (cuda_version_json_parse(text, &tk->version))
			fact_errors_add(&f->errors, path, "no \"cuda\" \"version\" in version.json");
	} else if (r != -ENOENT) {
		fact_errors_add(&f->errors, path, "cannot read: %s", strerror(-r));
	}
	free(text);
	text = NULL;
	free(path);
	if (tk->version)
		goto out;

	path = xasprintf("%s/version.txt", tk->path);
	r = sysroot_read_line(f->sr, path, &text);
	if (!r) {
		if (cuda_version_txt_parse(text, &tk->version))
			fact_errors_add(&f->errors, path, "not \"CUDA Version X.Y.Z\": \"%.40s\"", text);
	} else if (r != -ENOENT) {
		fact_errors_add(&f->errors, path, "cannot read: %s", strerror(-r));
	}
	free(text);
	free(path);
	if (tk->version)
		goto out;

	/* toolkits assembled from NVIDIA's wheels have neither file (the CUDA
	 * 13.0 of research/toolchain.md): the nvcc wheel's dist-info name, then
	 * the runtime header's CUDART_VERSION (cuda.h is over the read cap) */
	struct strvec names = STRVEC_INIT;
	path = xasprintf("%s/dist-info", tk->path);
	if (!sysroot_list(f->sr, path, &names)) {
		for (size_t i = 0; i < names.n && !tk->version; i++) {
			const char *n = names.v[i];
			struct version v;
			if (str_startswith(n, "nvidia_cuda_nvcc-") && str_endswith(n, ".dist-info") &&
			    !version_parse(n + 17, &v) && v.nparts >= 2)
				tk->version = xstrndup(n + 17, strlen(n) - 17 - 10);
		}
	}
	strvec_release(&names);
	free(path);
	if (tk->version)
		goto out;
	path = xasprintf("%s/include/cuda_runtime_api.h", tk->path);
	if (!sysroot_read(f->sr, path, &text, &len))
		tk->version = cudart_version_header(text);
	free(text);
	free(path);
out:
	if (!tk->version || version_parse(tk->version, &tk->ver))
		memset(&tk->ver, 0, sizeof(tk->ver));
}

static void add_toolkit(struct facts *f, const char *given)
{
	char *real = NULL;

	if (sysroot_realpath(f->sr, given, &real) || sysroot_type(f->sr, real) != NODE_DIR)
		goto out;
	for (size_t i = 0; i < f->cuda.ntoolkits; i++)
		if (!strcmp(f->cuda.toolkits[i].path, real))
			goto out;

	char *json = xasprintf("%s/version.json", real);
	char *txt = xasprintf("%s/version.txt", real);
	char *nvcc = xasprintf("%s/bin/nvcc", real);
	bool has_nvcc = sysroot_exists(f->sr, nvcc);
	bool toolkit = has_nvcc || sysroot_exists(f->sr, json) || sysroot_exists(f->sr, txt);
	free(json);
	free(txt);
	free(nvcc);
	if (!toolkit)
		goto out;

	f->cuda.toolkits = xrealloc(f->cuda.toolkits, (f->cuda.ntoolkits + 1) * sizeof(*f->cuda.toolkits));
	struct cuda_toolkit *tk = &f->cuda.toolkits[f->cuda.ntoolkits++];
	memset(tk, 0, sizeof(*tk));
	tk->path = real;
	real = NULL;
	tk->has_nvcc = has_nvcc;
	toolkit_version(f, tk);
out:
	free(real);
}

void facts_read_cuda(struct facts *f)
{
	struct strvec dirs = STRVEC_INIT;
	char *default_real = NULL;

	f->cuda.active = -1;
	strvec_push(&dirs, "/usr/local/cuda");
	sysroot_glob(f->sr, "/usr/local/cuda-*", &dirs);
	for (size_t i = 0; i < dirs.n; i++)
		add_toolkit(f, dirs.v[i]);

	if (!sysroot_realpath(f->sr, "/usr/local/cuda", &default_real)) {
		for (size_t i = 0; i < f->cuda.ntoolkits; i++)
			if (!strcmp(f->cuda.toolkits[i].path, default_real))
				f->cuda.active = (int)i;
	}
	if (f->cuda.active < 0 && f->cuda.ntoolkits == 1)
		f->cuda.active = 0;
	free(default_real);
	strvec_release(&dirs);
}

const struct cuda_toolkit *cuda_active(const struct facts *f)
{
	if (f && f->cuda.active >= 0 && (size_t)f->cuda.active < f->cuda.ntoolkits)
		return &f->cuda.toolkits[f->cuda.active];
	return NULL;
}
