#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>

#include "facts.h"
#include "tree.h"

static void os_free(struct os_facts *os)
{
	struct facts f;
	memset(&f, 0, sizeof(f));
	f.os = *os;
	facts_release(&f);
	memset(os, 0, sizeof(*os));
}

/* Ubuntu 22.04's /usr/lib/os-release */
static const char ubuntu[] =
	"PRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\n"
	"NAME=\"Ubuntu\"\n"
	"VERSION_ID=\"22.04\"\n"
	"VERSION=\"22.04.4 LTS (Jammy Jellyfish)\"\n"
	"VERSION_CODENAME=jammy\n"
	"ID=ubuntu\n"
	"ID_LIKE=debian\n"
	"HOME_URL=\"https://www.ubuntu.com/\"\n"
	"UBUNTU_CODENAME=jammy\n";

/* RHEL 8.10 */
static const char rhel[] =
	"NAME=\"Red Hat Enterprise Linux\"\n"
	"VERSION=\"8.10 (Ootpa)\"\n"
	"ID=\"rhel\"\n"
	"ID_LIKE=\"fedora\"\n"
	"VERSION_ID=\"8.10\"\n"
	"PLATFORM_ID=\"platform:el8\"\n"
	"PRETTY_NAME=\"Red Hat Enterprise Linux 8.10 (Ootpa)\"\n"
	"ANSI_COLOR=\"0;31\"\n";

static void test_real_files(void **state)
{
	(void)state;
	struct os_facts os = { 0 };
	assert_int_equal(os_release_parse(ubuntu, &os), 0);
	assert_string_equal(os.id, "ubuntu");
	assert_string_equal(os.id_like, "debian");
	assert_string_equal(os.version_id, "22.04");
	assert_string_equal(os.version_codename, "jammy");
	assert_string_equal(os.pretty_name, "Ubuntu 22.04.4 LTS");
	assert_string_equal(os.name, "Ubuntu");
	assert_null(os.variant_id);
	os_free(&os);
	assert_int_equal(os_release_parse(rhel, &os), 0);
	assert_string_equal(os.id, "rhel");
	assert_string_equal(os.version_id, "8.10");
	assert_string_equal(os.pretty_name, "Red Hat Enterprise Linux 8.10 (Ootpa)");
	assert_null(os.version_codename);
	os_free(&os);
}

static void test_quoting(void **state)
{
	(void)state;
	struct os_facts os = { 0 };
	assert_int_equal(os_release_parse(
		"# a comment\n"
		"\n"
		"   \n"
		"NAME='single \"quoted\" $HOME \\n'\n"
		"PRETTY_NAME=\"dq \\\"esc\\\" \\\\ \\$x \\`y\\` \\n kept\"\n"
		"ID=un\\ quoted\\\"x   # trailing comment\n"
		"VARIANT_ID=a\"b c\"'d e'f\n"
		"this is a garbage line\n"
		"=nokey\n"
		"1BAD=x\n"
		"VERSION_ID=\"unterminated\n"
		"ID_LIKE=\"ok\"\n"
		"VERSION_CODENAME=\n",
		&os), 0);
	assert_string_equal(os.name, "single \"quoted\" $HOME \\n");
	assert_string_equal(os.pretty_name, "dq \"esc\" \\ $x `y` \\n kept");
	assert_string_equal(os.id, "un quoted\"x");
	assert_string_equal(os.variant_id, "ab cd ef");
	assert_null(os.version_id);
	assert_string_equal(os.id_like, "ok");
	assert_string_equal(os.version_codename, "");
	os_free(&os);

	/* later assignments win, CRLF endings are white space */
	assert_int_equal(os_release_parse("ID=a\r\nID=b\r\n", &os), 0);
	assert_string_equal(os.id, "b");
	os_free(&os);
	/* a multi-line double-quoted value is one value */
	assert_int_equal(os_release_parse("NAME=\"two\nlines\"\nID=x\n", &os), 0);
	assert_string_equal(os.name, "two\nlines");
	assert_string_equal(os.id, "x");
	os_free(&os);
}

static void test_unparseable(void **state)
{
	(void)state;
	struct os_facts os = { 0 };
	assert_int_equal(os_release_parse("", &os), -EINVAL);
	assert_int_equal(os_release_parse("\x7f" "ELF\x02\x01\x01 garbage\n", &os), -EINVAL);
	assert_int_equal(os_release_parse("just words\n# and a comment\n", &os), -EINVAL);
	assert_int_equal(os_release_parse(NULL, &os), -EINVAL);
	assert_null(os.id);
	os_free(&os);
}

static void test_read(void **state)
{
	(void)state;
	struct facts *f;
	struct tree t;
	tree_new(&t);

	/* /etc/os-release is a relative link into /usr/lib, as on Debian */
	tree_put(&t, "usr/lib/os-release", ubuntu);
	tree_mkdirs(&t, "etc");
	tree_link(&t, "../usr/lib/os-release", "etc/os-release");
	f = tree_open(&t);
	facts_read_os(f);
	assert_true(f->os.present);
	assert_string_equal(f->os.path, "/etc/os-release");
	assert_string_equal(f->os.id, "ubuntu");
	assert_int_equal(f->errors.n, 0);
	tree_close(&t);

	/* only the fallback exists */
	char *p = xasprintf("%s/etc/os-release", t.dir);
	unlink(p);
	f = tree_open(&t);
	facts_read_os(f);
	assert_true(f->os.present);
	assert_string_equal(f->os.path, "/usr/lib/os-release");
	tree_close(&t);

	/* garbage: present but not understood -> a fact error, not present */
	tree_put(&t, "etc/os-release", "\x01\x02\x03 not an os-release\n");
	f = tree_open(&t);
	facts_read_os(f);
	assert_false(f->os.present);
	assert_null(f->os.id);
	assert_non_null(facts_error_for(f, "/etc/os-release"));
	tree_close(&t);

	/* binary with NUL bytes, and a directory where the file should be */
	tree_putn(&t, "etc/os-release", "ID=x\0\0\0", 7);
	f = tree_open(&t);
	facts_read_os(f);
	assert_false(f->os.present);
	assert_non_null(facts_error_for(f, "/etc/os-release"));
	tree_close(&t);
	unlink(p);
	tree_mkdirs(&t, "etc/os-release");
	f = tree_open(&t);
	facts_read_os(f);
	assert_false(f->os.present);
	const struct fact_error *e = facts_error_for(f, "/etc/");
	assert_non_null(e);
	assert_non_null(strstr(e->message, "directory"));
	tree_close(&t);

	/* an os-release without ID gets os-release(5)'s default */
	char *cmd = xasprintf("rm -rf '%s'", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	tree_put(&t, "etc/os-release", "VERSION_ID=1\n");
	f = tree_open(&t);
	facts_read_os(f);
	assert_true(f->os.present);
	assert_string_equal(f->os.id, "linux");
	tree_close(&t);

	/* neither file */
	cmd = xasprintf("rm -rf '%s/etc' '%s/usr'", t.dir, t.dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	f = tree_open(&t);
	facts_read_os(f);
	assert_false(f->os.present);
	assert_null(f->os.path);
	assert_int_equal(f->errors.n, 0);
	tree_close(&t);
	free(p);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_files),
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_unparseable),
		cmocka_unit_test(test_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
