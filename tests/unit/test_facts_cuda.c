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

/* The shape of a CUDA 12.x toolkit's version.json (abridged). */
static const char version_json_124[] =
	"{\n"
	"   \"cuda\" : {\n"
	"      \"name\" : \"CUDA SDK\",\n"
	"      \"version\" : \"12.4.1\"\n"
	"   },\n"
	"   \"cuda_cudart\" : {\n"
	"      \"name\" : \"CUDA Runtime (cudart)\",\n"
	"      \"version\" : \"12.4.127\"\n"
	"   },\n"
	"   \"cuda_nvcc\" : {\n"
	"      \"name\" : \"CUDA NVCC\",\n"
	"      \"version\" : \"12.4.131\"\n"
	"   }\n"
	"}\n";

static void test_json_parse(void **state)
{
	(void)state;
	char *v = NULL;
	assert_int_equal(cuda_version_json_parse(version_json_124, &v), 0);
	assert_string_equal(v, "12.4.1");
	free(v);

	assert_int_equal(cuda_version_json_parse("{\"cuda_nvcc\": {\"version\": \"12.4.131\"}}", &v),
			 -EINVAL);
	assert_null(v);
	assert_int_equal(cuda_version_json_parse("{\"cuda\": {\"version\": 12}}", &v), -EINVAL);
	assert_int_equal(cuda_version_json_parse("{\"cuda\": \"12.4\"}", &v), -EINVAL);
	assert_int_equal(cuda_version_json_parse("{\"cuda\": {\"version\": \"twelve\"}}", &v), -EINVAL);
	assert_int_equal(cuda_version_json_parse("[1, 2]", &v), -EINVAL);
	assert_int_equal(cuda_version_json_parse("{\"cuda\": {\"version\": \"12.4", &v), -EINVAL);
	assert_int_equal(cuda_version_json_parse("", &v), -EINVAL);
	assert_int_equal(cuda_version_json_parse(NULL, &v), -EINVAL);
}

static void test_toolkits(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "usr/local/cuda-12.4/version.json", version_json_124);
	tree_put(&t, "usr/local/cuda-12.4/bin/nvcc", "");
	/* an old toolkit with version.txt and no nvcc */
	tree_put(&t, "usr/local/cuda-11.0/version.txt", "CUDA Version 11.0.228\n");
	/* a broken one: unparseable version.json */
	tree_put(&t, "usr/local/cuda-12.1/version.json", "{\"cuda\":");
	tree_put(&t, "usr/local/cuda-12.1/bin/nvcc", "");
	/* a leftover directory: no toolkit */
	tree_mkdirs(&t, "usr/local/cuda-10.2/doc");
	/* /usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-12.4, and a
	 * versioned alias link: both count once */
	tree_link(&t, "/usr/local/cuda-12.4", "etc/alternatives/cuda");
	tree_link(&t, "/etc/alternatives/cuda", "usr/local/cuda");
	tree_link(&t, "cuda-12.4", "usr/local/cuda-12");

	struct facts *f = tree_open(&t);
	facts_read_cuda(f);
	assert_int_equal(f->cuda.ntoolkits, 3);
	const struct cuda_toolkit *a = &f->cuda.toolkits[0];
	assert_string_equal(a->path, "/usr/local/cuda-12.4");
	assert_string_equal(a->version, "12.4.1");
	assert_int_equal(a->ver.part[0], 12);
	assert_int_equal(a->ver.part[1], 4);
	assert_true(a->has_nvcc);
	const struct cuda_toolkit *b = &f->cuda.toolkits[1];
	assert_string_equal(b->path, "/usr/local/cuda-11.0");
	assert_string_equal(b->version, "11.0.228");
	assert_false(b->has_nvcc);
	const struct cuda_toolkit *c = &f->cuda.toolkits[2];
	assert_string_equal(c->path, "/usr/local/cuda-12.1");
	assert_null(c->version);
	assert_int_equal(c->ver.nparts, 0);
	assert_true(has_error(f, "/usr/local/cuda-12.1/version.json"));
	assert_int_equal(f->cuda.active, 0);
	tree_free(&t);
}

static void test_only_one_and_none(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "usr/local/cuda-11.8/version.txt", "garbage\n");
	tree_put(&t, "usr/local/cuda-11.8/bin/nvcc", "");
	struct facts *f = tree_open(&t);
	facts_read_cuda(f);
	assert_int_equal(f->cuda.ntoolkits, 1);
	assert_null(f->cuda.toolkits[0].version);
	assert_true(has_error(f, "/usr/local/cuda-11.8/version.txt"));
	assert_int_equal(f->cuda.active, 0); /* the only one */
	tree_free(&t);

	tree_new(&t);
	tree_put(&t, "usr/local/cuda-12.2/version.json", "{\"cuda\":{\"version\":\"12.2.2\"}}");
	tree_put(&t, "usr/local/cuda-12.3/version.json", "{\"cuda\":{\"version\":\"12.3.0\"}}");
	f = tree_open(&t);
	facts_read_cuda(f);
	assert_int_equal(f->cuda.ntoolkits, 2);
	assert_int_equal(f->cuda.active, -1); /* two and no /usr/local/cuda */
	tree_free(&t);

	tree_new(&t);
	f = tree_open(&t);
	facts_read_cuda(f);
	assert_int_equal(f->cuda.ntoolkits, 0);
	assert_int_equal(f->cuda.active, -1);
	tree_free(&t);
}

static void test_wheel_built(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	/* a toolkit assembled from NVIDIA's wheels: no version.json/txt */
	tree_put(&t, "usr/local/cuda-13.0/bin/nvcc", "");
	tree_mkdirs(&t, "usr/local/cuda-13.0/dist-info/nvidia_cuda_runtime-13.0.96.dist-info");
	tree_mkdirs(&t, "usr/local/cuda-13.0/dist-info/nvidia_cuda_nvcc-13.0.88.dist-info");
	tree_link(&t, "/usr/local/cuda-13.0", "usr/local/cuda");
	/* and one with only the runtime header */
	tree_put(&t, "usr/local/cuda-12.6/bin/nvcc", "");
	tree_put(&t, "usr/local/cuda-12.6/include/cuda_runtime_api.h",
		 "/* header */\n#define CUDART_VERSIONS 1\n#define CUDART_VERSION  12060\n");
	struct facts *f = tree_open(&t);
	facts_read_cuda(f);
	assert_int_equal(f->cuda.ntoolkits, 2);
	assert_string_equal(f->cuda.toolkits[0].path, "/usr/local/cuda-13.0");
	assert_string_equal(f->cuda.toolkits[0].version, "13.0.88");
	assert_int_equal(f->cuda.active, 0);
	assert_string_equal(f->cuda.toolkits[1].path, "/usr/local/cuda-12.6");
	assert_string_equal(f->cuda.toolkits[1].version, "12.6");
	assert_int_equal(f->cuda.toolkits[1].ver.part[1], 6);
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_parse),
		cmocka_unit_test(test_toolkits),
		cmocka_unit_test(test_only_one_and_none),
		cmocka_unit_test(test_wheel_built),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
