#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "tree.h"

/* torch/version.py as a ROCm nightly writes it (annotated style). */
static const char rocm_version_py[] =
	"from typing import Optional\n"
	"\n"
	"__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
	"__version__ = '2.3.0.dev20240308+rocm6.0'\n"
	"debug = False\n"
	"cuda: Optional[str] = None\n"
	"git_version = '5c0c20d9ed6b1a1b0f7d8c3e8a4f3b2c1d0e9f8a'\n"
	"hip: Optional[str] = '6.0.32830-d62f6a171'\n";

/* an older CUDA wheel (plain assignments) */
static const char cuda_version_py_old[] =
	"__version__ = '1.13.1+cu117'\n"
	"debug = False\n"
	"cuda = '11.7'\n"
	"git_version = '49444c3e546bf240bed24a101e747422d1f8a0ee'\n"
	"hip = None\n";

static const char cuda_version_py[] =
	"from typing import Optional\n"
	"__version__ = '2.4.0+cu121'\n"
	"debug = False\n"
	"cuda: Optional[str] = '12.1'\n"
	"git_version = 'e4ee3be4063b7c430974252fdf7db42273388d86'\n"
	"hip: Optional[str] = None\n";

static const char cpu_version_py[] =
	"__version__ = \"2.4.0+cpu\"\n"
	"debug = False\n"
	"cuda = None\n"
	"hip = None\n";

static void test_version_py(void **state)
{
	(void)state;
	char *ver, *bver;
	enum fw_backend b;

	assert_int_equal(torch_version_py_parse(rocm_version_py, &ver, &b, &bver), 0);
	assert_string_equal(ver, "2.3.0.dev20240308+rocm6.0");
	assert_int_equal(b, FW_BACKEND_ROCM);
	assert_string_equal(bver, "6.0");
	free(ver);
	free(bver);

	assert_int_equal(torch_version_py_parse(cuda_version_py_old, &ver, &b, &bver), 0);
	assert_string_equal(ver, "1.13.1+cu117");
	assert_int_equal(b, FW_BACKEND_CUDA);
	assert_string_equal(bver, "11.7");
	free(ver);
	free(bver);

	assert_int_equal(torch_version_py_parse(cuda_version_py, &ver, &b, &bver), 0);
	assert_int_equal(b, FW_BACKEND_CUDA);
	assert_string_equal(bver, "12.1");
	free(ver);
	free(bver);

	assert_int_equal(torch_version_py_parse(cpu_version_py, &ver, &b, &bver), 0);
	assert_string_equal(ver, "2.4.0+cpu");
	assert_int_equal(b, FW_BACKEND_CPU);
	assert_null(bver);
	free(ver);

	/* neither key: the local version tag is the only hint */
	assert_int_equal(torch_version_py_parse("__version__ = '2.1.0+rocm5.6'\n", &ver, &b, &bver), 0);
	assert_int_equal(b, FW_BACKEND_ROCM);
	assert_string_equal(bver, "5.6");
	free(ver);
	free(bver);
	assert_int_equal(torch_version_py_parse("__version__ = '2.1.0+cu118'\n", &ver, &b, &bver), 0);
	assert_int_equal(b, FW_BACKEND_CUDA);
	assert_string_equal(bver, "11.8");
	free(ver);
	free(bver);
	assert_int_equal(torch_version_py_parse("__version__ = '2.1.0'\n", &ver, &b, &bver), 0);
	assert_int_equal(b, FW_BACKEND_UNKNOWN);
	assert_null(bver);
	free(ver);

	/* broken files */
	assert_int_equal(torch_version_py_parse("cuda = '12.1'\n", &ver, &b, &bver), -EINVAL);
	assert_null(ver);
	assert_null(bver);
	assert_int_equal(torch_version_py_parse("__version__ = '2.4.0\n", &ver, &b, &bver), -EINVAL);
	assert_int_equal(torch_version_py_parse("__version__ == '2.4.0'\n", &ver, &b, &bver), -EINVAL);
	assert_int_equal(torch_version_py_parse("\x01\x02\xff\n", &ver, &b, &bver), -EINVAL);
	assert_int_equal(torch_version_py_parse("", &ver, &b, &bver), -EINVAL);
	assert_int_equal(torch_version_py_parse(NULL, &ver, &b, &bver), -EINVAL);
}

#define SYS_SITE "usr/local/lib/python3.10/dist-packages"

static void put_torch(struct tree *t, const char *site, const char *version_py, const char *dist)
{
	char *p = xasprintf("%s/torch/version.py", site);
	tree_put(t, p, version_py);
	free(p);
	p = xasprintf("%s/torch/__init__.py", site);
	tree_put(t, p, "");
	free(p);
	if (dist) {
		char *ver = strstr(dist, "-") + 1;
		p = xasprintf("%s/%s.dist-info/METADATA", site, dist);
		char *meta = xasprintf("Metadata-Version: 2.1\nName: torch\nVersion: %.*s\n"
				       "Summary: Tensors and Dynamic neural networks\n\nName: not-a-header\n",
				       (int)strlen(ver), ver);
		tree_put(t, p, meta);
		free(meta);
		free(p);
	}
}

static const struct framework *find_fw(const struct facts *f, const char *name, const char *site)
{
	for (size_t i = 0; i < f->py.n; i++)
		if (!strcmp(f->py.v[i].name, name) && strstr(f->py.v[i].site, site))
			return &f->py.v[i];
	return NULL;
}

/* The environment's Python from the site path. */
static void test_python_version_of_site(void **state)
{
	(void)state;
	struct framework fw;
	char buf[16];
	memset(&fw, 0, sizeof(fw));
	assert_null(framework_python_version(&fw, buf, sizeof(buf)));
	fw.site = "/home/alice/venv/lib/python3.10/site-packages";
	assert_string_equal(framework_python_version(&fw, buf, sizeof(buf)), "3.10");
	fw.site = "/opt/conda/envs/t/lib/python3.13/site-packages";
	assert_string_equal(framework_python_version(&fw, buf, sizeof(buf)), "3.13");
	fw.site = "/usr/lib/python3/dist-packages";
	assert_null(framework_python_version(&fw, buf, sizeof(buf)));
	fw.site = "/usr/lib/python3.12t/site-packages";
	assert_null(framework_python_version(&fw, buf, sizeof(buf)));
	assert_null(framework_python_version(NULL, buf, sizeof(buf)));
}

static void test_rocm_wheel(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	put_torch(&t, SYS_SITE, rocm_version_py, "torch-2.3.0.dev20240308+rocm6.0");
	tree_put(&t, SYS_SITE "/torch/lib/libamdhip64.so", "");
	tree_put(&t, SYS_SITE "/torch/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat", "");
	tree_put(&t, SYS_SITE "/torch/lib/rocblas/library/TensileLibrary_lazy_gfx90a.dat", "");
	tree_put(&t, SYS_SITE "/torch/lib/rocblas/library/Kernels.so-000-gfx1030.hsaco", "");

	struct facts *f = tree_open(&t);
	facts_read_python(f);
	assert_int_equal(f->py.n, 1);
	const struct framework *fw = &f->py.v[0];
	assert_string_equal(fw->name, "torch");
	assert_string_equal(fw->version, "2.3.0.dev20240308+rocm6.0");
	assert_int_equal(fw->backend, FW_BACKEND_ROCM);
	assert_string_equal(fw->backend_version, "6.0");
	assert_string_equal(fw->path, "/" SYS_SITE "/torch");
	assert_string_equal(fw->site, "/" SYS_SITE);
	assert_true(fw->bundled_hip);
	assert_false(fw->bundled_cudart);
	assert_true(fw->has_rocblas_dir);
	assert_int_equal(fw->tensile_archs.n, 2);
	assert_string_equal(fw->tensile_archs.v[0], "gfx1100");
	assert_string_equal(fw->tensile_archs.v[1], "gfx90a");
	assert_true(fw->active);
	assert_true(strvec_contains(&f->py.sites_searched, "/" SYS_SITE));
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);
}

static void test_cuda_and_cpu_wheels(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	/* CUDA wheel: cudart from the nvidia-cuda-runtime wheel beside it */
	put_torch(&t, "usr/lib/python3/dist-packages", cuda_version_py, "torch-2.4.0+cu121");
	tree_put(&t, "usr/lib/python3/dist-packages/nvidia/cuda_runtime/lib/libcudart.so.12", "");
	/* an older CUDA wheel with its own libcudart, and a CPU wheel */
	put_torch(&t, "opt/conda/lib/python3.8/site-packages", cuda_version_py_old, NULL);
	tree_put(&t, "opt/conda/lib/python3.8/site-packages/torch/lib/libcudart-e409450e.so.11.0", "");
	put_torch(&t, "usr/lib/python3.11/site-packages", cpu_version_py, "torch-2.4.0+cpu");

	struct facts *f = tree_open(&t);
	facts_read_python(f);
	assert_int_equal(f->py.n, 3);
	/* search order: /usr/lib/python3/dist-packages, .../python3.*, /opt/conda */
	assert_string_equal(f->py.v[0].site, "/usr/lib/python3/dist-packages");
	assert_int_equal(f->py.v[0].backend, FW_BACKEND_CUDA);
	assert_string_equal(f->py.v[0].backend_version, "12.1");
	assert_true(f->py.v[0].bundled_cudart);
	assert_false(f->py.v[0].bundled_hip);
	assert_false(f->py.v[0].has_rocblas_dir);
	assert_true(f->py.v[0].active);
	assert_string_equal(f->py.v[1].site, "/usr/lib/python3.11/site-packages");
	assert_int_equal(f->py.v[1].backend, FW_BACKEND_CPU);
	assert_false(f->py.v[1].bundled_cudart);
	assert_false(f->py.v[1].active);
	assert_string_equal(f->py.v[2].site, "/opt/conda/lib/python3.8/site-packages");
	assert_string_equal(f->py.v[2].version, "1.13.1+cu117");
	assert_true(f->py.v[2].bundled_cudart);
	assert_false(f->py.v[2].active);
	assert_int_equal(f->py.sites_searched.n, 3);
	tree_free(&t);
}

static void test_venv_precedence(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_put(&t, ".rocmcheck/host.ini",
		 "[user]\nname = alice\nhome = /home/alice\n"
		 "[env]\nVIRTUAL_ENV = /home/alice/venv/\nCONDA_PREFIX = /home/alice/miniconda3\n");
	put_torch(&t, SYS_SITE, cuda_version_py, "torch-2.4.0+cu121");
	put_torch(&t, "home/alice/.local/lib/python3.10/site-packages", cpu_version_py, "torch-2.4.0+cpu");
	put_torch(&t, "home/alice/venv/lib/python3.10/site-packages", rocm_version_py, NULL);
	/* a METADATA-only install: version from METADATA, backend from its tag */
	tree_put(&t, "home/alice/miniconda3/lib/python3.12/site-packages/"
		     "torch-2.5.1+rocm6.2.dist-info/METADATA", "Name: torch\nVersion: 2.5.1+rocm6.2\n");
	/* /usr/local/lib/python3.10/dist-packages reached a second way counts once */
	tree_link(&t, "/" SYS_SITE, "usr/local/lib/python3.10/site-packages");
	/* what makes an environment: pyvenv.cfg, conda-meta/ */
	tree_put(&t, "home/alice/venv/pyvenv.cfg", "home = /usr/bin\n");
	tree_mkdirs(&t, "home/alice/miniconda3/conda-meta");

	struct facts *f = tree_open(&t);
	facts_read_python(f);
	assert_int_equal(f->py.n, 4);
	assert_string_equal(f->py.v[0].site, "/home/alice/venv/lib/python3.10/site-packages");
	assert_int_equal(f->py.v[0].backend, FW_BACKEND_ROCM);
	assert_true(f->py.v[0].active);
	assert_string_equal(f->py.v[1].site, "/home/alice/miniconda3/lib/python3.12/site-packages");
	assert_string_equal(f->py.v[1].version, "2.5.1+rocm6.2");
	assert_int_equal(f->py.v[1].backend, FW_BACKEND_ROCM);
	assert_string_equal(f->py.v[1].backend_version, "6.2");
	assert_null(f->py.v[1].path);
	assert_false(f->py.v[1].active);
	assert_string_equal(f->py.v[2].site, "/home/alice/.local/lib/python3.10/site-packages");
	assert_int_equal(f->py.v[2].backend, FW_BACKEND_CPU);
	assert_false(f->py.v[2].active);
	assert_string_equal(f->py.v[3].site, "/" SYS_SITE);
	assert_int_equal(f->py.v[3].backend, FW_BACKEND_CUDA);
	assert_false(f->py.v[3].active);
	assert_int_equal(f->py.sites_searched.n, 4);
	assert_non_null(find_fw(f, "torch", "venv"));
	/* the interpreter a fix must name: an environment's own, else none */
	assert_string_equal(f->py.v[0].python, "/home/alice/venv/bin/python");
	assert_string_equal(f->py.v[1].python, "/home/alice/miniconda3/bin/python");
	assert_null(f->py.v[2].python); /* ~/.local: the user's site of a system Python */
	assert_null(f->py.v[3].python); /* the system's site */
	tree_free(&t);
}

static void test_tensorflow(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	/* tensorflow-rocm with a 2.x dict-style build_info.py */
	tree_put(&t, SYS_SITE "/tensorflow_rocm-2.14.0.600.dist-info/METADATA",
		 "Name: tensorflow-rocm\nVersion: 2.14.0.600\n");
	tree_put(&t, SYS_SITE "/tensorflow/python/platform/build_info.py",
		 "import collections\n"
		 "build_info = collections.OrderedDict([('cpu_compiler', '/usr/bin/gcc'), "
		 "('is_cuda_build', False), ('is_rocm_build', True), ('is_tensorrt_build', False), "
		 "('rocm_version', '6.0.0')])\n");
	/* a CUDA tensorflow with 1.x module-level flags */
	const char *s2 = "usr/lib/python3.11/site-packages";
	char *p = xasprintf("%s/tensorflow-1.15.5.dist-info/METADATA", s2);
	tree_put(&t, p, "Name: tensorflow\nVersion: 1.15.5\n");
	free(p);
	p = xasprintf("%s/tensorflow/python/platform/build_info.py", s2);
	tree_put(&t, p, "msvcp_dll_name = 'msvcp140.dll'\nis_rocm_build = False\nis_cuda_build = True\n"
			"cuda_version_number = '10.0'\n");
	free(p);
	/* a tensorflow with no build_info.py: the distribution name tells */
	const char *s3 = "opt/conda/lib/python3.9/site-packages";
	p = xasprintf("%s/tensorflow-2.15.0.dist-info/METADATA", s3);
	tree_put(&t, p, "Name: tensorflow\nVersion: 2.15.0\n");
	free(p);
	p = xasprintf("%s/tensorflow/__init__.py", s3);
	tree_put(&t, p, "");
	free(p);

	struct facts *f = tree_open(&t);
	facts_read_python(f);
	assert_int_equal(f->py.n, 3);
	const struct framework *a = &f->py.v[0];
	assert_string_equal(a->name, "tensorflow-rocm");
	assert_string_equal(a->version, "2.14.0.600");
	assert_int_equal(a->backend, FW_BACKEND_ROCM);
	assert_string_equal(a->backend_version, "6.0");
	assert_string_equal(a->path, "/" SYS_SITE "/tensorflow");
	assert_true(a->active);
	const struct framework *b = &f->py.v[1];
	assert_string_equal(b->name, "tensorflow");
	assert_int_equal(b->backend, FW_BACKEND_CUDA);
	assert_string_equal(b->backend_version, "10.0");
	assert_true(b->active);
	const struct framework *c = &f->py.v[2];
	assert_string_equal(c->name, "tensorflow");
	assert_string_equal(c->version, "2.15.0");
	assert_int_equal(c->backend, FW_BACKEND_CUDA);
	assert_false(c->active);
	tree_free(&t);
}

static void test_broken_and_empty(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	put_torch(&t, SYS_SITE, "\x7f" "ELF garbage\n", NULL);
	struct facts *f = tree_open(&t);
	facts_read_python(f);
	assert_int_equal(f->py.n, 1);
	assert_null(f->py.v[0].version);
	assert_int_equal(f->py.v[0].backend, FW_BACKEND_UNKNOWN);
	assert_true(has_error(f, "/" SYS_SITE "/torch/version.py"));
	tree_free(&t);

	tree_new(&t);
	f = tree_open(&t);
	facts_read_python(f);
	assert_int_equal(f->py.n, 0);
	assert_int_equal(f->py.sites_searched.n, 0);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_py),
		cmocka_unit_test(test_python_version_of_site),
		cmocka_unit_test(test_rocm_wheel),
		cmocka_unit_test(test_cuda_and_cpu_wheels),
		cmocka_unit_test(test_venv_precedence),
		cmocka_unit_test(test_tensorflow),
		cmocka_unit_test(test_broken_and_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
