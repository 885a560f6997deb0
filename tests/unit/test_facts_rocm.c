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

static void test_header_parse(void **state)
{
	(void)state;
	struct version v;
	/* the layout of ROCm's include/rocm-core/rocm_version.h */
	const char *h = "#ifndef ROCM_VERSION_H\n#define ROCM_VERSION_H\n"
			"#define ROCM_VERSION_MAJOR   6\n"
			"#define ROCM_VERSION_MINOR   2\n"
			"#define ROCM_VERSION_PATCH   4\n"
			"#define ROCM_VERSION_MAJOR_MINOR_PATCH 60204\n"
			"#endif\n";
	assert_int_equal(rocm_version_header_parse(h, &v), 0);
	assert_int_equal(v.nparts, 3);
	assert_int_equal(v.part[0], 6);
	assert_int_equal(v.part[1], 2);
	assert_int_equal(v.part[2], 4);

	/* spacing variants and a trailing comment; PATCH missing counts as 0 */
	assert_int_equal(rocm_version_header_parse("  #  define ROCM_VERSION_MAJOR\t7 /* major */\n"
						   "#define ROCM_VERSION_MINOR 1 // minor\n", &v), 0);
	assert_int_equal(v.part[0], 7);
	assert_int_equal(v.part[1], 1);
	assert_int_equal(v.part[2], 0);

	assert_int_equal(rocm_version_header_parse("#define ROCM_VERSION_MAJOR 6\n", &v), -EINVAL);
	assert_int_equal(v.nparts, 0);
	assert_int_equal(rocm_version_header_parse("#define ROCM_VERSION_MAJOR six\n"
						   "#define ROCM_VERSION_MINOR 2\n", &v), -EINVAL);
	assert_int_equal(rocm_version_header_parse("#define ROCM_VERSION_MAJORX 6\n"
						   "#define ROCM_VERSION_MINOR 2\n", &v), -EINVAL);
	assert_int_equal(rocm_version_header_parse("#define ROCM_VERSION_MAJOR 99999999999999999999\n"
						   "#define ROCM_VERSION_MINOR 2\n", &v), -EINVAL);
	assert_int_equal(rocm_version_header_parse("", &v), -EINVAL);
	assert_int_equal(rocm_version_header_parse(NULL, &v), -EINVAL);
}

static void test_tensile_names(void **state)
{
	(void)state;
	struct strvec names = STRVEC_INIT, archs = STRVEC_INIT;
	static const char *const files[] = {
		"TensileLibrary_lazy_gfx1100.dat",
		"TensileLibrary_Type_HH_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx90a.co",
		"TensileLibrary_gfx1030.dat",
		"Kernels.so-000-gfx1030.hsaco",        /* not a Tensile library */
		"Kernels.so-000-gfx942.hsaco",         /* not one either: gfx942 must not appear */
		"TensileLibrary_gfx90a:xnack+.dat",    /* feature suffix: same arch */
		"TensileLibrary_Type_SS_Contraction_l_Alik_Bljk_Cijk_Dijk_fallback_gfx908-xnack-.hsaco",
		"TensileLibrary.dat",                  /* no arch */
		"TensileManifest.txt",
		"TensileLibrary_gfx10-3-generic.dat",  /* a generic target is no arch */
		"TensileLibrary_lazy_gfx1100.dat",     /* duplicate */
		"TensileLibrary_gfx1100x.dat",         /* not a gfx name */
		"TensileLibrary_gfx.dat",
	};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		strvec_push(&names, files[i]);
	tensile_archs_from_names(&names, &archs);
	assert_int_equal(archs.n, 4);
	assert_string_equal(archs.v[0], "gfx1030");
	assert_string_equal(archs.v[1], "gfx1100");
	assert_string_equal(archs.v[2], "gfx908");
	assert_string_equal(archs.v[3], "gfx90a");
	strvec_release(&names);
	strvec_release(&archs);
}

static const char rocm_h_624[] = "#define ROCM_VERSION_MAJOR 6\n#define ROCM_VERSION_MINOR 2\n"
				 "#define ROCM_VERSION_PATCH 4\n";

static void test_info_version_and_symlink(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "opt/rocm-6.3.2/.info/version", "6.3.2-66\n");
	tree_put(&t, "opt/rocm-6.3.2/include/rocm-core/rocm_version.h", rocm_h_624);
	tree_put(&t, "opt/rocm-6.3.2/lib/libamdhip64.so.6.3.60302", "");
	tree_link(&t, "libamdhip64.so.6.3.60302", "opt/rocm-6.3.2/lib/libamdhip64.so.6");
	tree_put(&t, "opt/rocm-6.3.2/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat", "");
	tree_put(&t, "opt/rocm-6.3.2/lib/rocblas/library/TensileLibrary_lazy_gfx942.dat", "");
	tree_put(&t, "opt/rocm-6.3.2/lib/rocblas/library/Kernels.so-000-gfx1030.hsaco", "");
	/* /opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-6.3.2: one install */
	tree_link(&t, "/opt/rocm-6.3.2", "etc/alternatives/rocm");
	tree_link(&t, "/etc/alternatives/rocm", "opt/rocm");

	struct facts *f = tree_open(&t);
	facts_read_rocm(f);
	assert_int_equal(f->rocm.ninstalls, 1);
	const struct rocm_install *in = &f->rocm.installs[0];
	assert_string_equal(in->path, "/opt/rocm-6.3.2");
	assert_string_equal(in->version, "6.3.2-66");
	assert_int_equal(in->ver.part[0], 6);
	assert_int_equal(in->ver.part[1], 3);
	assert_int_equal(in->ver.part[2], 2);
	assert_int_equal(in->source, ROCM_SRC_INFO_VERSION);
	assert_string_equal(in->source_path, "/opt/rocm-6.3.2/.info/version");
	assert_true(in->is_default);
	assert_true(in->has_hip);
	assert_string_equal(in->rocblas_dir, "/opt/rocm-6.3.2/lib/rocblas/library");
	assert_int_equal(in->tensile_archs.n, 2);
	assert_string_equal(in->tensile_archs.v[0], "gfx1100");
	assert_string_equal(in->tensile_archs.v[1], "gfx942");
	assert_int_equal(f->rocm.active, 0);
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);
}

static void test_fallbacks(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	/* header beats the directory name; a garbage .info/version is an error */
	tree_put(&t, "opt/rocm-6.2.0/.info/version", "\x01\x02garbage\n");
	tree_put(&t, "opt/rocm-6.2.0/include/rocm-core/rocm_version.h", rocm_h_624);
	/* only the directory name (a 7.x container install without .info) */
	tree_put(&t, "opt/rocm-7.0.1/lib/libamdhip64.so.7", "");
	/* an empty leftover after an uninstall: not an install */
	tree_mkdirs(&t, "opt/rocm-5.7.0/share");
	/* only ROCM_PATH's name: a link named for its release onto an unnamed tree */
	tree_put(&t, "srv/sdk/bin/hipcc", "");
	tree_link(&t, "/srv/sdk", "home/alice/rocm-6.0.2");
	tree_put(&t, ".rocmcheck/host.ini", "[env]\nROCM_PATH = /home/alice/rocm-6.0.2/\n");

	struct facts *f = tree_open(&t);
	facts_read_rocm(f);
	assert_int_equal(f->rocm.ninstalls, 3);

	const struct rocm_install *a = &f->rocm.installs[0];
	assert_string_equal(a->path, "/opt/rocm-6.2.0");
	assert_string_equal(a->version, "6.2.4");
	assert_int_equal(a->source, ROCM_SRC_HEADER);
	assert_string_equal(a->source_path, "/opt/rocm-6.2.0/include/rocm-core/rocm_version.h");
	assert_false(a->has_hip);
	assert_null(a->rocblas_dir);
	assert_true(has_error(f, "/opt/rocm-6.2.0/.info/version"));

	const struct rocm_install *b = &f->rocm.installs[1];
	assert_string_equal(b->path, "/opt/rocm-7.0.1");
	assert_string_equal(b->version, "7.0.1");
	assert_int_equal(b->source, ROCM_SRC_DIRNAME);
	assert_true(b->has_hip);

	const struct rocm_install *c = &f->rocm.installs[2];
	assert_string_equal(c->path, "/srv/sdk");
	assert_string_equal(c->version, "6.0.2");
	assert_int_equal(c->source, ROCM_SRC_ROCM_PATH);

	/* no /opt/rocm: none is the default, the newest wins */
	for (size_t i = 0; i < f->rocm.ninstalls; i++)
		assert_false(f->rocm.installs[i].is_default);
	assert_int_equal(f->rocm.active, 1);
	tree_free(&t);
}

static void test_distro(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	/* Debian/Ubuntu packages: the HIP library's name carries the release */
	tree_put(&t, "usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.50203", "");
	tree_link(&t, "libamdhip64.so.5.2.50203", "usr/lib/x86_64-linux-gnu/libamdhip64.so.5");
	tree_put(&t, "usr/lib/x86_64-linux-gnu/rocblas/5.2.3/library/TensileLibrary_gfx1030.dat", "");

	struct facts *f = tree_open(&t);
	facts_read_rocm(f);
	assert_int_equal(f->rocm.ninstalls, 1);
	const struct rocm_install *in = &f->rocm.installs[0];
	assert_string_equal(in->path, "/usr");
	assert_string_equal(in->version, "5.2.3");
	assert_int_equal(in->source, ROCM_SRC_DISTRO);
	assert_string_equal(in->source_path, "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.50203");
	assert_true(in->has_hip);
	assert_true(in->is_default); /* the only one */
	assert_string_equal(in->rocblas_dir, "/usr/lib/x86_64-linux-gnu/rocblas/5.2.3/library");
	assert_int_equal(in->tensile_archs.n, 1);
	assert_int_equal(f->rocm.active, 0);
	tree_free(&t);

	/* a HIP patch level that is no ROCm release: report HIP major.minor */
	tree_new(&t);
	tree_put(&t, "usr/lib/x86_64-linux-gnu/libamdhip64.so.5.7.31921", "");
	f = tree_open(&t);
	facts_read_rocm(f);
	assert_int_equal(f->rocm.ninstalls, 1);
	assert_string_equal(f->rocm.installs[0].version, "5.7");
	assert_null(f->rocm.installs[0].rocblas_dir);
	tree_free(&t);
}

static void test_distro_link_into_opt(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	/* a library link into /opt/rocm is that install, not a second one;
	 * a real /opt/rocm directory is the default */
	tree_put(&t, "opt/rocm/.info/version", "6.1.2-119\n");
	tree_put(&t, "opt/rocm/lib/libamdhip64.so.6.1.60102", "");
	tree_link(&t, "/opt/rocm/lib/libamdhip64.so.6.1.60102",
		  "usr/lib/x86_64-linux-gnu/libamdhip64.so.6");
	tree_put(&t, "opt/rocm-6.3.0/.info/version", "6.3.0-39\n");

	struct facts *f = tree_open(&t);
	facts_read_rocm(f);
	assert_int_equal(f->rocm.ninstalls, 2);
	assert_string_equal(f->rocm.installs[0].path, "/opt/rocm");
	assert_true(f->rocm.installs[0].is_default);
	assert_string_equal(f->rocm.installs[1].path, "/opt/rocm-6.3.0");
	assert_false(f->rocm.installs[1].is_default);
	/* the default wins over the newer one */
	assert_int_equal(f->rocm.active, 0);
	tree_free(&t);
}

static void test_dangling_and_none(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_link(&t, "/opt/rocm-6.0.0", "opt/rocm");
	struct facts *f = tree_open(&t);
	facts_read_rocm(f);
	assert_int_equal(f->rocm.ninstalls, 0);
	assert_int_equal(f->rocm.active, -1);
	assert_true(has_error(f, "dangling"));
	tree_free(&t);

	tree_new(&t);
	f = tree_open(&t);
	facts_read_rocm(f);
	assert_int_equal(f->rocm.ninstalls, 0);
	assert_int_equal(f->rocm.active, -1);
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_parse),
		cmocka_unit_test(test_tensile_names),
		cmocka_unit_test(test_info_version_and_symlink),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_distro),
		cmocka_unit_test(test_distro_link_into_opt),
		cmocka_unit_test(test_dangling_and_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
