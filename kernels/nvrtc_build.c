/* Build-time tool: compile the probe kernels with a pinned NVRTC (the CUDA 12
 * wheel from PyPI, kernels/kernels.cmake) into one cubin per SM and PTX for
 * the lowest target. Run on the build machine only; rocmcheck never links it.
 *
 *   nvrtc_build LIBNVRTC SOURCE OUTPREFIX [-IDIR]... TARGET...
 *
 * TARGET "sm_80" writes OUTPREFIX.sm_80.cubin, "compute_70" writes
 * OUTPREFIX.compute_70.ptx. libnvrtc is dlopen'ed by path, so the build needs
 * no CUDA headers. Exits 0, or 1 with the compiler's log on stderr. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *nvrtcProgram;
typedef int nvrtcResult;

struct nvrtc {
	nvrtcResult (*Version)(int *, int *);
	nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
				     const char *const *);
	nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
	nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
	nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
	nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
	nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
	nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t *);
	nvrtcResult (*GetPTX)(nvrtcProgram, char *);
	nvrtcResult (*DestroyProgram)(nvrtcProgram *);
	const char *(*GetErrorString)(nvrtcResult);
};

static int sym(void *lib, const char *name, void *fnptr, size_t size)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "nvrtc_build: %s: %s\n", name, dlerror());
		return -1;
	}
	memcpy(fnptr, &p, size);
	return 0;
}
#define SYM(lib, name, fp) sym((lib), (name), &(fp), sizeof(fp))

static int nvrtc_open(const char *path, struct nvrtc *n)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "nvrtc_build: %s\n", dlerror());
		return -1;
	}
	if (SYM(lib, "nvrtcVersion", n->Version) || SYM(lib, "nvrtcCreateProgram", n->CreateProgram) ||
	    SYM(lib, "nvrtcCompileProgram", n->CompileProgram) ||
	    SYM(lib, "nvrtcGetProgramLogSize", n->GetProgramLogSize) ||
	    SYM(lib, "nvrtcGetProgramLog", n->GetProgramLog) || SYM(lib, "nvrtcGetCUBINSize", n->GetCUBINSize) ||
	    SYM(lib, "nvrtcGetCUBIN", n->GetCUBIN) || SYM(lib, "nvrtcGetPTXSize", n->GetPTXSize) ||
	    SYM(lib, "nvrtcGetPTX", n->GetPTX) || SYM(lib, "nvrtcDestroyProgram", n->DestroyProgram) ||
	    SYM(lib, "nvrtcGetErrorString", n->GetErrorString))
		return -1;
	return 0;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap + 1);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			char *more = realloc(buf, 2 * cap + 1);
			if (!more) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = more;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* Write to PATH.tmp, then rename: make never sees half an image. */
static int write_all(const char *path, const void *data, size_t len)
{
	char tmp[4200];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -1;
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		perror(tmp);
		return -1;
	}
	int ok = fwrite(data, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, path) != 0) {
		perror(path);
		remove(tmp);
		return -1;
	}
	return 0;
}

/* One compilation for `target`; the image goes to OUTPREFIX.target.{cubin,ptx}. */
static int build_one(const struct nvrtc *n, const char *source, const char *name, const char *prefix,
		     const char *target, const char *const *incs, int nincs)
{
	int cubin = !strncmp(target, "sm_", 3);
	if (!cubin && strncmp(target, "compute_", 8)) {
		fprintf(stderr, "nvrtc_build: %s: not sm_NN or compute_NN\n", target);
		return -1;
	}
	const char *opts[64];
	int nopts = 0;
	char arch[64];
	snprintf(arch, sizeof(arch), "--gpu-architecture=%s", target);
	opts[nopts++] = arch;
	opts[nopts++] = "--std=c++17";
	for (int i = 0; i < nincs && nopts < 64; i++)
		opts[nopts++] = incs[i];

	nvrtcProgram prog = NULL;
	int rc = -1;
	char *code = NULL;
	nvrtcResult r = n->CreateProgram(&prog, source, name, 0, NULL, NULL);
	if (r) {
		fprintf(stderr, "nvrtc_build: nvrtcCreateProgram: %s\n", n->GetErrorString(r));
		return -1;
	}
	r = n->CompileProgram(prog, nopts, opts);
	size_t lsz = 0;
	if (n->GetProgramLogSize(prog, &lsz) == 0 && lsz > 1) {
		char *log = malloc(lsz + 1);
		if (log && n->GetProgramLog(prog, log) == 0) {
			log[lsz] = '\0';
			fprintf(stderr, "%s: %s", target, log);
		}
		free(log);
	}
	if (r) {
		fprintf(stderr, "nvrtc_build: %s: %s\n", target, n->GetErrorString(r));
		goto out;
	}
	size_t sz = 0;
	r = cubin ? n->GetCUBINSize(prog, &sz) : n->GetPTXSize(prog, &sz);
	if (r || !sz || !(code = malloc(sz))) {
		fprintf(stderr, "nvrtc_build: %s: no code (%s)\n", target, r ? n->GetErrorString(r) : "empty");
		goto out;
	}
	r = cubin ? n->GetCUBIN(prog, code) : n->GetPTX(prog, code);
	if (r) {
		fprintf(stderr, "nvrtc_build: %s: %s\n", target, n->GetErrorString(r));
		goto out;
	}
	/* the PTX's size counts its terminating NUL, which cuModuleLoadData needs */
	char path[4096];
	if (snprintf(path, sizeof(path), "%s.%s.%s", prefix, target, cubin ? "cubin" : "ptx") < (int)sizeof(path))
		rc = write_all(path, code, sz);
out:
	free(code);
	n->DestroyProgram(&prog);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fputs("usage: nvrtc_build LIBNVRTC SOURCE OUTPREFIX [-IDIR]... TARGET...\n", stderr);
		return 2;
	}
	struct nvrtc n;
	if (nvrtc_open(argv[1], &n) < 0)
		return 1;
	int major = 0, minor = 0;
	n.Version(&major, &minor);
	char *source = read_all(argv[2]);
	if (!source) {
		perror(argv[2]);
		return 1;
	}
	const char *incs[32];
	int nincs = 0, status = 0;
	for (int i = 4; i < argc; i++) {
		if (!strncmp(argv[i], "-I", 2)) {
			if (nincs < 32)
				incs[nincs++] = argv[i];
			continue;
		}
		if (build_one(&n, source, "probes.hip", argv[3], argv[i], incs, nincs) < 0)
			status = 1;
	}
	if (!status)
		printf("nvrtc_build: NVRTC %d.%d built %d image(s)\n", major, minor, argc - 4 - nincs);
	free(source);
	return status;
}
