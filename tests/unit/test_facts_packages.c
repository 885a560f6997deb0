/* facts_packages.c: which packages count as the GPU stack, dpkg's status
 * parsed and filtered, the DKMS tree, and a package database over the usual
 * file cap. */
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

static void test_gpu_stack_names(void **state)
{
	(void)state;
	static const char *const yes[] = {
		"rocm-hip-runtime", "rocm", "rocblas", "hip-runtime-amd", "hipcc", "libamdhip64-5", "libhsa-runtime64-1",
		"miopen-hip", "amdgpu-dkms", "amdgpu-dkms-firmware", "libdrm-amdgpu1", "firmware-amd-graphics",
		"nvidia-driver-550", "libnvidia-compute-550", "cuda-toolkit-12-4", "libcudnn9-cuda-12", "dkms",
		"linux-image-6.8.0-40-generic", "linux-headers-generic-hwe-22.04", "linux-firmware", "rccl",
		"librocblas0", "hsa-rocr", "kernel", "kernel-core", "kernel-devel-matched", "kmod-nvidia-latest-dkms", "rocm6.2.0", "hipblaslt", "hsakmt-roct-dev", "libcudart12", "libcuda1",
		"cuda-12-4", "hip", "hsa", "cuda", "libcuda", "cuda.1", "cuda+x",
	};
	static const char *const no[] = {
		"bash", "libc6", "rocksdb-tools", "librocksdb8.9", "cudatext", "linux-base",
		"dkmsx", "libdrm2", "kernelshark", "", "openssh-server", "hi", "h", "cud", "hsx", "rocn",
		"libcud", "kerne", "cudax",
	};
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		if (!package_is_gpu_stack(yes[i]))
			fail_msg("%s is part of the GPU stack", yes[i]);
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		if (package_is_gpu_stack(no[i]))
			fail_msg("%s is not part of the GPU stack", no[i]);
	assert_false(package_is_gpu_stack(NULL));
}

static const char status_text[] =
	"Package: bash\nStatus: install ok installed\nArchitecture: amd64\nVersion: 5.1-6ubuntu1.1\n"
	"Description: GNU Bourne Again SHell\n rocm-core: a line of description, not a field\n\n"
	"Package: rocm-core\nStatus: install ok installed\nPriority: optional\nArchitecture: amd64\n"
	"Version: 6.2.0.60200-66~22.04\nDescription: ROCm Runtime software stack\n\n\n"
	"Package: linux-image-6.5.0-35-generic\nStatus: deinstall ok config-files\nArchitecture: amd64\n"
	"Version: 6.5.0-35.35~22.04.1\n\n"
	"Package: libdrm-amdgpu1\r\nStatus: hold ok installed\r\nArchitecture: i386\r\nVersion: 2.4.113-2\r\n\r\n"
	"Package: amdgpu-dkms\nStatus: install ok installed\nArchitecture: all\n"
	"Version: 1:6.8.5.60200-2009582.22.04\nDepends: dkms (>= 1.95)\n"
	"Package: not-a-new-stanza\n\n"
	"Status: install ok installed\nVersion: 1.0\n\n"   /* no Package: ignored */
	"Package: hip-runtime-amd\nStatus: install ok unpacked\nVersion: 6.2.41133\n\n"
	"Package: cuda-toolkit-12-4\nStatus: install ok installed\nVersion: 12.4.1-1\nArchitecture: amd64";

static void test_dpkg_parse(void **state)
{
	(void)state;
	struct package_facts p;
	memset(&p, 0, sizeof(p));
	assert_int_equal(dpkg_status_parse(status_text, strlen(status_text), &p), 0);
	/* installed GPU-stack packages only, sorted; a removed kernel, an
	 * unpacked HIP and bash are not */
	assert_int_equal(p.n, 4);
	assert_string_equal(p.v[0].name, "amdgpu-dkms");
	assert_string_equal(p.v[0].version, "1:6.8.5.60200-2009582.22.04");
	assert_string_equal(p.v[0].arch, "all");
	assert_string_equal(p.v[1].name, "cuda-toolkit-12-4");
	assert_string_equal(p.v[1].version, "12.4.1-1");   /* the last stanza has no blank line after it */
	assert_string_equal(p.v[2].name, "libdrm-amdgpu1");
	assert_string_equal(p.v[2].version, "2.4.113-2"); /* CRLF lines */
	assert_string_equal(p.v[2].arch, "i386");
	assert_string_equal(p.v[3].name, "rocm-core");
	/* appended: a second text adds to the list (past its first capacity) */
	for (int i = 0; i < 6; i++)
		assert_int_equal(dpkg_status_parse(status_text, strlen(status_text), &p), 0);
	assert_int_equal(p.n, 28);
	assert_string_equal(p.v[27].name, "rocm-core");
	package_facts_release(&p);
	assert_int_equal(p.n, 0);
	/* nothing, garbage, NULs */
	assert_int_equal(dpkg_status_parse("", 0, &p), 0);
	assert_int_equal(p.n, 0);
	static const char junk[] = "Package:\n\n\n:\nPackage: rocm\0Status: install ok installed\n";
	assert_int_equal(dpkg_status_parse(junk, sizeof(junk) - 1, &p), 0);
	assert_true(p.n <= 1);
	package_facts_release(&p);

	/* A stanza whose first line names another package is passed over to
	 * its blank line: an LF one, a CRLF one, a "\r" alone at the end; one
	 * whose name a NUL cuts short; a later Package line in it changes
	 * nothing; a stanza that does not start with Package is read whole. */
	static const char skips[] =
		"PACKAGE: bash\nDescription: x\n rocm-core\nPackage: rocm-core\nStatus: install ok installed\n\n"
		"package:libc6\r\nStatus: install ok installed\r\n\r\n"
		"Package: rocm-smi-lib\nStatus: install ok installed\nVersion: 7.3\n\n"
		"Package: zlib1g\nVersion: 1\n\r\n"
		"Package: ro\0cm-x\nStatus: install ok installed\n\n"
		"Version: 2.0\nStatus: install ok installed\nPackage: hipcc\n\n"
		"Package: gcc\nStatus: install ok installed\n\r";
	assert_int_equal(dpkg_status_parse(skips, sizeof(skips) - 1, &p), 0);
	assert_int_equal(p.n, 2);
	assert_string_equal(p.v[0].name, "hipcc");
	assert_string_equal(p.v[0].version, "2.0");
	assert_string_equal(p.v[1].name, "rocm-smi-lib");
	assert_string_equal(p.v[1].version, "7.3");
	package_facts_release(&p);
	/* the same cut at every byte: only those two (a cut name as far as it
	 * goes), once each */
	for (size_t cut = 0; cut <= sizeof(skips) - 1; cut++) {
		assert_int_equal(dpkg_status_parse(skips, cut, &p), 0);
		assert_true(p.n <= 2);
		for (size_t i = 0; i < p.n; i++)
			if (strncmp("hipcc", p.v[i].name, strlen(p.v[i].name)) &&
			    strncmp("rocm-smi-lib", p.v[i].name, strlen(p.v[i].name)))
				fail_msg("cut at %zu: %s", cut, p.v[i].name);
		package_facts_release(&p);
	}
}

static void test_dpkg_filter(void **state)
{
	(void)state;
	char *out = dpkg_status_filter(status_text, strlen(status_text));
	/* the GPU stack's stanzas whole, whatever their status; nothing else */
	assert_null(strstr(out, "bash"));
	assert_null(strstr(out, "description, not a field"));
	assert_non_null(strstr(out, "Package: rocm-core\nStatus: install ok installed\nPriority: optional\n"));
	assert_non_null(strstr(out, "Package: linux-image-6.5.0-35-generic\nStatus: deinstall ok config-files\n"));
	assert_non_null(strstr(out, "Depends: dkms (>= 1.95)\n"));
	/* what the filter keeps parses to what the whole file does */
	struct package_facts a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	dpkg_status_parse(status_text, strlen(status_text), &a);
	dpkg_status_parse(out, strlen(out), &b);
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_string_equal(a.v[i].name, b.v[i].name);
		assert_string_equal(a.v[i].version, b.v[i].version);
	}
	package_facts_release(&a);
	package_facts_release(&b);
	free(out);
	out = dpkg_status_filter("Package: bash\n", 14);
	assert_string_equal(out, "");
	free(out);
}

static void test_read_packages(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "var/lib/dpkg/status", status_text);
	tree_mkdirs(&t, "var/lib/dkms/amdgpu/6.8.5-2009582.22.04/6.8.0-40-generic/x86_64/module");
	tree_mkdirs(&t, "var/lib/dkms/amdgpu/6.8.5-2009582.22.04/6.5.0-35-generic/x86_64/module");
	tree_mkdirs(&t, "var/lib/dkms/amdgpu/6.8.5-2009582.22.04/build");
	tree_link(&t, "/usr/src/amdgpu-6.8.5-2009582.22.04", "var/lib/dkms/amdgpu/6.8.5-2009582.22.04/source");
	tree_link(&t, "6.8.5-2009582.22.04/6.8.0-40-generic/x86_64",
		  "var/lib/dkms/amdgpu/kernel-6.8.0-40-generic-x86_64");
	tree_mkdirs(&t, "var/lib/dkms/nvidia/550.120");           /* added, never built */
	tree_put(&t, "var/lib/dkms/mok.pub", "key");
	tree_put(&t, "var/lib/dkms/dkms_dbversion", "3.0\n");
	struct facts *f = tree_open(&t);
	facts_read_packages(f);
	assert_string_equal(f->pkg.db, "/var/lib/dpkg/status");
	assert_int_equal(f->pkg.n, 4);
	assert_int_equal(f->pkg.ndkms, 2);
	assert_string_equal(f->pkg.dkms[0].name, "amdgpu");
	assert_string_equal(f->pkg.dkms[0].version, "6.8.5-2009582.22.04");
	assert_int_equal(f->pkg.dkms[0].kernels.n, 2);
	assert_string_equal(f->pkg.dkms[0].kernels.v[0], "6.5.0-35-generic");
	assert_string_equal(f->pkg.dkms[0].kernels.v[1], "6.8.0-40-generic");
	assert_string_equal(f->pkg.dkms[1].name, "nvidia");
	assert_int_equal(f->pkg.dkms[1].kernels.n, 0);
	assert_int_equal(f->errors.n, 0);
	tree_close(&t);

	/* no dpkg, no DKMS: nothing known, no error */
	tree_rm(&t, "var/lib/dpkg");
	tree_rm(&t, "var/lib/dkms");
	f = tree_open(&t);
	facts_read_packages(f);
	assert_null(f->pkg.db);
	assert_int_equal(f->pkg.n + f->pkg.ndkms + f->errors.n, 0);
	tree_close(&t);
	tree_free(&t);
}

static void test_rpm_qa_parse(void **state)
{
	(void)state;
	struct strvec t = STRVEC_INIT;
	assert_int_equal(rpm_qa_parse("rocm-core x86_64 6.3.3.60303-74.el9\n"
				      "bash x86_64 5.1.8-9.el9\r\n"
				      "gpg-pubkey (none) 8483c65d-5ccc5b19\n"
				      "kernel (none) 5.14.0-427.el9\n"            /* no arch */
				      "amdgpu-dkms noarch 1:6.10.5.60303-2125197.el9\r\n"
				      "rocm=evil x86_64 1\n[rocm] x86_64 1\nrocblas x86_64\n"
				      "rocblas x86_64 4.3.0 extra\n\n   \n", &t), 0);
	assert_int_equal(t.n, 9);
	assert_string_equal(t.v[0], "rocm-core");
	assert_string_equal(t.v[1], "x86_64");
	assert_string_equal(t.v[2], "6.3.3.60303-74.el9");
	assert_string_equal(t.v[3], "kernel");
	assert_string_equal(t.v[4], "");
	assert_string_equal(t.v[6], "amdgpu-dkms");
	assert_string_equal(t.v[8], "1:6.10.5.60303-2125197.el9");
	strvec_release(&t);
	assert_int_equal(rpm_qa_parse(NULL, &t), 0);
	assert_int_equal(t.n, 0);
}

/* A capture's host.ini [packages] (what `rpm -qa` said when the bundle was
 * made) stands in for a package database where there is no dpkg one. */
static void test_host_packages(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_put(&t, ".rocmcheck/host.ini",
		 "[capture]\nformat = 1\n\n[packages]\nrocm-core.x86_64 = 6.3.3.60303-74.el9\n"
		 "kernel = 5.14.0-427.el9\nbash.x86_64 = 5.1\namdgpu-dkms.noarch = 1:6.10.5\n");
	struct facts *f = tree_open(&t);
	facts_read_packages(f);
	assert_string_equal(f->pkg.db, "rpm");
	assert_int_equal(f->pkg.n, 3);
	assert_string_equal(f->pkg.v[0].name, "amdgpu-dkms");
	assert_string_equal(f->pkg.v[0].arch, "noarch");
	assert_string_equal(f->pkg.v[1].name, "kernel");
	assert_null(f->pkg.v[1].arch);
	assert_string_equal(f->pkg.v[2].version, "6.3.3.60303-74.el9");
	tree_close(&t);
	/* a dpkg database wins over host.ini */
	tree_put(&t, "var/lib/dpkg/status", "Package: rocm-core\nStatus: install ok installed\nVersion: 6.2.0\n");
	f = tree_open(&t);
	facts_read_packages(f);
	assert_string_equal(f->pkg.db, "/var/lib/dpkg/status");
	assert_int_equal(f->pkg.n, 1);
	tree_close(&t);
	/* an empty [packages] says the list was taken: known, and empty */
	tree_rm(&t, "var/lib/dpkg");
	tree_put(&t, ".rocmcheck/host.ini", "[capture]\nformat = 1\n[packages]\n");
	f = tree_open(&t);
	facts_read_packages(f);
	assert_string_equal(f->pkg.db, "rpm");
	assert_int_equal(f->pkg.n, 0);
	tree_close(&t);
	tree_free(&t);
}

/* A desktop's database is larger than the 1 MiB every other file is held
 * to: it is read whole up to its own cap. */
static void test_big_database(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; sb.len < (size_t)3 << 20; i++)
		strbuf_addf(&sb, "Package: filler-%d\nStatus: install ok installed\nVersion: 1.%d\n"
				 "Description: a package that is not the GPU stack, padded to a realistic size\n"
				 " with a long description of the kind desktop packages carry.\n\n", i, i);
	strbuf_addstr(&sb, "Package: rocm-core\nStatus: install ok installed\nVersion: 6.2.0\n\n");
	struct tree t;
	tree_new(&t);
	tree_put(&t, "var/lib/dpkg/status", sb.buf);
	struct facts *f = tree_open(&t);
	facts_read_packages(f);
	assert_int_equal(f->pkg.n, 1);
	assert_string_equal(f->pkg.v[0].name, "rocm-core");
	tree_close(&t);
	tree_free(&t);
	strbuf_release(&sb);
}

/* The database is read in pieces (16 or 64 KiB): stanzas that straddle a piece
 * boundary, CRLF files and a last stanza without its blank line give the
 * same packages as parsing the whole text. */
static void test_streamed_database(void **state)
{
	(void)state;
	static const char *const nl[] = { "\n", "\r\n" };
	for (size_t k = 0; k < ARRAY_SIZE(nl); k++) {
		struct strbuf sb = STRBUF_INIT;
		for (int i = 0; sb.len < (size_t)1 << 20; i++)
			strbuf_addf(&sb, "Package: %s-%d%sStatus: install ok installed%sVersion: 1.%d%s"
					 "Description: padding of varying length %*s%s%s",
				    i % 7 ? "filler" : "rocm-hip-runtime", i, nl[k], nl[k], i, nl[k], i % 97, "", nl[k],
				    nl[k]);
		strbuf_addf(&sb, "Package: rocm-core%sStatus: install ok installed%sVersion: 6.2.0", nl[k], nl[k]);
		struct package_facts whole = { 0 };
		dpkg_status_parse(sb.buf, sb.len, &whole);
		struct tree t;
		tree_new(&t);
		tree_put(&t, "var/lib/dpkg/status", sb.buf);
		struct facts *f = tree_open(&t);
		facts_read_packages(f);
		assert_int_equal(f->pkg.n, whole.n);
		assert_true(whole.n > 100);
		for (size_t i = 0; i < whole.n; i++) {
			assert_string_equal(f->pkg.v[i].name, whole.v[i].name);
			assert_string_equal(f->pkg.v[i].version, whole.v[i].version);
		}
		package_facts_release(&whole);
		tree_close(&t);
		tree_free(&t);
		strbuf_release(&sb);
	}
}

/* A blank line that a piece boundary cuts ("\n|\n", "\n\r|\n", "\n|\r\n"
 * and every neighbour; 64 KiB is a boundary for any piece size up to it):
 * each stanza is still read whole. */
static void test_blank_line_at_piece_boundary(void **state)
{
	(void)state;
	static const char *const nl[] = { "\n", "\r\n" };
	for (size_t k = 0; k < ARRAY_SIZE(nl); k++) {
		for (int delta = -4; delta <= 4; delta++) {
			struct strbuf sb = STRBUF_INIT;
			strbuf_addf(&sb, "Package: hip-dev%sStatus: install ok installed%sVersion: 1%sDescription: ",
				    nl[k], nl[k], nl[k]);
			/* the first stanza's last line ends so that its blank line
			 * starts delta bytes around the boundary */
			while (sb.len + strlen(nl[k]) < (size_t)(65536 + delta))
				strbuf_addch(&sb, 'x');
			strbuf_addf(&sb, "%s%s", nl[k], nl[k]);
			strbuf_addf(&sb, "Package: rocm-core%sStatus: install ok installed%sVersion: 6.2.0%s%s",
				    nl[k], nl[k], nl[k], nl[k]);
			struct tree t;
			tree_new(&t);
			tree_put(&t, "var/lib/dpkg/status", sb.buf);
			struct facts *f = tree_open(&t);
			facts_read_packages(f);
			assert_int_equal(f->pkg.n, 2);
			assert_string_equal(f->pkg.v[0].name, "hip-dev");
			assert_string_equal(f->pkg.v[0].version, "1");
			assert_string_equal(f->pkg.v[1].name, "rocm-core");
			assert_string_equal(f->pkg.v[1].version, "6.2.0");
			tree_close(&t);
			tree_free(&t);
			strbuf_release(&sb);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_stack_names),
		cmocka_unit_test(test_dpkg_parse),
		cmocka_unit_test(test_dpkg_filter),
		cmocka_unit_test(test_read_packages),
		cmocka_unit_test(test_big_database),
		cmocka_unit_test(test_streamed_database),
		cmocka_unit_test(test_blank_line_at_piece_boundary),
		cmocka_unit_test(test_rpm_qa_parse),
		cmocka_unit_test(test_host_packages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
