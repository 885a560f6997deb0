#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "redact.h"

static void test_secret_names(void **state)
{
	(void)state;
	static const char *const secret[] = {
		"GITHUB_TOKEN", "hf_token", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "SMB_PASSWD",
		"OPENAI_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "NPM_AUTH", "HTTP_COOKIE",
		"SESSION_ID", "Api_Key",
	};
	static const char *const plain[] = {
		"PATH", "HSA_OVERRIDE_GFX_VERSION", "ROCR_VISIBLE_DEVICES", "HOME", "VIRTUAL_ENV",
		"https_proxy", "LD_LIBRARY_PATH",
	};
	for (size_t i = 0; i < ARRAY_SIZE(secret); i++)
		assert_true(redact_secret_name(secret[i]));
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		assert_false(redact_secret_name(plain[i]));
	assert_false(redact_secret_name(NULL));

	char *v = redact_env_value("GITHUB_TOKEN", "ghp_abcdef123456");
	assert_string_equal(v, "<redacted>");
	free(v);
	v = redact_env_value("HSA_OVERRIDE_GFX_VERSION", "11.0.0");
	assert_string_equal(v, "11.0.0");
	free(v);
}

static void test_url_credentials(void **state)
{
	(void)state;
	struct strvec found = STRVEC_INIT;
	char *v = redact_url_credentials("http://bob:hunter22@proxy.corp:3128", &found);
	assert_string_equal(v, "http://<redacted>@proxy.corp:3128");
	assert_true(strvec_contains(&found, "hunter22"));
	assert_true(strvec_contains(&found, "bob:hunter22"));
	free(v);
	/* anywhere in a value, several times, user-only tokens too */
	v = redact_url_credentials("a=https://u:p%40ss@h/x b=git+https://ghp_tok@github.com/o/r.git", NULL);
	assert_string_equal(v, "a=https://<redacted>@h/x b=git+https://<redacted>@github.com/o/r.git");
	free(v);
	/* an '@' in the path is not user information; idempotent on its own output */
	v = redact_url_credentials("https://h/a@b and https://<redacted>@h", NULL);
	assert_string_equal(v, "https://h/a@b and https://<redacted>@h");
	free(v);
	v = redact_url_credentials("no urls here: user@host, ://x@y", NULL);
	assert_string_equal(v, "no urls here: user@host, ://x@y");
	free(v);
	v = redact_env_value("HTTPS_PROXY", "http://me:s3cretpw@10.0.0.1:8080/");
	assert_string_equal(v, "http://<redacted>@10.0.0.1:8080/");
	free(v);
	strvec_release(&found);
}

static char *apply(struct redactor *rd, const char *s)
{
	return redactor_apply_str(rd, s);
}

static void test_scrub_everywhere(void **state)
{
	(void)state;
	struct redactor rd;
	redactor_init(&rd, false);
	redactor_learn_env(&rd, "HF_TOKEN", "hf_XyZ123secret");
	redactor_learn_env(&rd, "PIP_INDEX_URL", "https://alice:pa55word@pypi.corp/simple");
	redactor_learn_env(&rd, "SHORT_KEY", "1"); /* too short to scrub elsewhere */
	redactor_learn_env(&rd, "PATH", "/usr/bin");
	assert_int_equal(rd.secrets.n, 3);
	char *out = apply(&rd, "token=hf_XyZ123secret pw pa55word url https://alice:pa55word@pypi.corp/ 1 /usr/bin");
	assert_null(strstr(out, "hf_XyZ123secret"));
	assert_null(strstr(out, "pa55word"));
	assert_non_null(strstr(out, "/usr/bin"));
	assert_non_null(strstr(out, " 1 "));
	free(out);

	/* binary data keeps its size, secret bytes are overwritten */
	char bin[32] = "ab\0hf_XyZ123secret\0zz";
	size_t n;
	out = redactor_apply(&rd, bin, 22, &n);
	assert_int_equal(n, 22);
	assert_null(memmem(out, n, "hf_XyZ123secret", 15));
	assert_memory_equal(out, "ab\0", 3);
	free(out);
	redactor_release(&rd);
}

static void test_anonymize_consistent(void **state)
{
	(void)state;
	struct redactor rd;
	redactor_init(&rd, true);
	const char *h = redactor_add(&rd, ANON_HOST, "gpu-node07");
	assert_string_equal(h, "host-1");
	assert_string_equal(redactor_add(&rd, ANON_USER, "alice"), "user-1");
	redactor_add(&rd, ANON_HOME, "/srv/people/alice");
	/* same value, same pseudonym; root and localhost identify nobody */
	assert_string_equal(redactor_add(&rd, ANON_HOST, "gpu-node07"), "host-1");
	assert_string_equal(redactor_add(&rd, ANON_USER, "root"), "root");
	assert_string_equal(redactor_add(&rd, ANON_HOST, "localhost"), "localhost");

	const char *file1 = "nodename = gpu-node07\nname = alice\nhome = /srv/people/alice\n"
			    "VIRTUAL_ENV = /srv/people/alice/venv\nowner = root\nalicex stays\n";
	const char *file2 = "[ 1.0] eth0: link up 10.1.2.3 fe80::1ff:fe23:4567:890a 00:1A:2b:3c:4d:5e\n"
			    "peer 10.1.2.3 at 00:1a:2b:3c:4d:5e, lo 127.0.0.1, alice@gpu-node07.example.com\n"
			    "pci 0000:03:00.0 time 12:34:56 rocm 6.2.0 dkms 6.8.5.60202 uuid 8be4df61-93ca\n";
	char *a = apply(&rd, file1);
	char *b = apply(&rd, file2);
	assert_null(strstr(a, "gpu-node07"));
	assert_null(strstr(a, "people"));
	assert_non_null(strstr(a, "nodename = host-1\n"));
	assert_non_null(strstr(a, "name = user-1\n"));
	assert_non_null(strstr(a, "home = /home/home-1\n"));
	assert_non_null(strstr(a, "VIRTUAL_ENV = /home/home-1/venv\n"));
	assert_non_null(strstr(a, "owner = root\n"));
	assert_non_null(strstr(a, "alicex stays"));

	assert_null(strstr(b, "10.1.2.3"));
	assert_null(strstr(b, "fe80"));
	assert_null(strstr(b, "4d:5e"));
	assert_null(strstr(b, "alice"));
	assert_null(strstr(b, "gpu-node07"));
	/* consistent across files and spellings */
	assert_non_null(strstr(b, "link up ipv4-1 ipv6-1 mac-1\n"));
	assert_non_null(strstr(b, "peer ipv4-1 at mac-1, lo 127.0.0.1, user-1@host-1.example.com"));
	/* what is not an address stays */
	assert_non_null(strstr(b, "pci 0000:03:00.0 time 12:34:56 rocm 6.2.0 dkms 6.8.5.60202"));
	free(a);
	free(b);
	redactor_release(&rd);
}

static void test_serials(void **state)
{
	(void)state;
	struct redactor rd;
	redactor_init(&rd, true);
	const char *smi = "    Serial Number                         : 1324021012345\n"
			  "    GPU UUID                              : GPU-8f2b9c1e-1111-2222-3333-444455556666\n"
			  "unique_id 4812093448291011\n"
			  "Unique ID: 0x6bd14f03c2a1b7e8\n"
			  "Board Id : 0x0\n";
	redactor_learn_serials(&rd, smi, strlen(smi));
	/* the sysfs unique_id file has just the value, registered by the caller */
	const char *ps = redactor_add(&rd, ANON_SERIAL, "6bd14f03c2a1b7e8");
	assert_int_equal(strlen(ps), 16);
	assert_true(strspn(ps, "0123456789abcdef") == 16);
	char *out = apply(&rd, smi);
	assert_null(strstr(out, "1324021012345"));
	assert_null(strstr(out, "8f2b9c1e"));
	assert_null(strstr(out, "4812093448291011"));
	assert_null(strstr(out, "6bd14f03c2a1b7e8"));
	assert_non_null(strstr(out, "Board Id : 0x0"));
	/* a decimal id stays decimal, of the same length, so parsers still read it */
	const char *u = strstr(out, "unique_id ");
	assert_non_null(u);
	u += 10;
	assert_int_equal(strspn(u, "0123456789"), 16);
	assert_true(u[0] != '0');
	free(out);
	out = apply(&rd, "6bd14f03c2a1b7e8\n");
	assert_string_equal(out, "a000000000000005\n");
	free(out);
	redactor_release(&rd);

	/* without --anonymize nothing is registered or replaced */
	redactor_init(&rd, false);
	redactor_learn_serials(&rd, smi, strlen(smi));
	assert_int_equal(rd.npairs, 0);
	assert_string_equal(redactor_add(&rd, ANON_HOST, "gpu-node07"), "gpu-node07");
	out = apply(&rd, "10.1.2.3 gpu-node07");
	assert_string_equal(out, "10.1.2.3 gpu-node07");
	free(out);
	redactor_release(&rd);
}

/* Many secrets and many pseudonyms (a hostile bundle's environment or
 * cpuinfo): the longest match at each place wins, in text and in binary
 * data, and every one of them is found. */
static void test_many(void **state)
{
	(void)state;
	struct redactor rd;
	redactor_init(&rd, true);
	redactor_add_secret(&rd, "abcd");
	redactor_add_secret(&rd, "abcd1234");
	redactor_add_secret(&rd, "abcd");          /* known: not added twice */
	assert_int_equal(rd.secrets.n, 2);
	char *out = redactor_apply_str(&rd, "xx abcd1234 abcd yy");
	assert_string_equal(out, "xx " REDACTED " " REDACTED " yy");
	free(out);
	static const char bin[] = "abcd1234\0abcd-";
	size_t n;
	out = redactor_apply(&rd, bin, sizeof(bin) - 1, &n);
	assert_int_equal(n, sizeof(bin) - 1);
	assert_memory_equal(out, "XXXXXXXX\0XXXX-", n);
	free(out);

	char v[32];
	for (unsigned i = 0; i < 20000; i++) {
		snprintf(v, sizeof(v), "s%0*u", (int)(4 + i % 7), i);
		redactor_add_secret(&rd, v);
		snprintf(v, sizeof(v), "10.%u.%u.%u", i / 65536, i / 256 % 256, i % 256);
		redactor_add(&rd, ANON_IPV4, v);
	}
	out = redactor_apply_str(&rd, "a s19999 b 10.0.78.31 c s00008 d s00008x");
	/* i = 19999: width 4 + 0, the 20000th address; i = 8: width 5 */
	assert_string_equal(out, "a " REDACTED " b ipv4-20000 c " REDACTED " d " REDACTED "x");
	free(out);
	redactor_release(&rd);

	/* a long secret that almost matches at every place: found at its end */
	redactor_init(&rd, false);
	struct strbuf secret = STRBUF_INIT, text = STRBUF_INIT;
	for (int i = 0; i < 5000; i++)
		strbuf_addch(&secret, 'a');
	strbuf_addch(&secret, 'b');
	for (int i = 0; i < 10000; i++)
		strbuf_addch(&text, 'a');
	strbuf_addch(&text, 'b');
	redactor_add_secret(&rd, secret.buf);
	out = redactor_apply_str(&rd, text.buf);
	assert_int_equal(strlen(out), 5000 + strlen(REDACTED));
	assert_string_equal(out + 5000, REDACTED);
	free(out);
	strbuf_release(&secret);
	strbuf_release(&text);
	redactor_release(&rd);
}

/* Which keys of key=value pairs in captured text look secret: whole dotted,
 * underscored or dashed components for the short words, anywhere in a
 * component for the long ones, and never a Kconfig symbol. */
static void test_secret_keys(void **state)
{
	(void)state;
	static const char *const secret[] = {
		"password", "PASSWORD", "luks.key", "rd.luks.key", "api_token", "API_KEY", "apikey",
		"client_secret", "x-auth-token", "auth", "wpa_passphrase", "inst.vncpassword",
		"private_key", "privateKey", "sessionid", "db.passwd", "keys", "aws.secretAccessKey",
		"cryptkey", "my-pass", "psk", "Cookie", "credentials", "creds", "--password",
	};
	static const char *const plain[] = {
		"keyboard", "vconsole.keymap", "monkey", "bypass", "spec_store_bypass_disable",
		"iommu", "amd_iommu", "intel_iommu", "amdgpu.ppfeaturemask", "amdgpu.runpm", "author",
		"passthrough", "iommu.passthrough", "root", "BOOT_IMAGE", "ip", "ifname", "BOOTIF",
		"CONFIG_KEYS", "CONFIG_SYSTEM_TRUSTED_KEYS", "vt.handoff", "crashkernel", "", "pwd",
	};
	for (size_t i = 0; i < ARRAY_SIZE(secret); i++)
		if (!redact_secret_key(secret[i], strlen(secret[i])))
			fail_msg("'%s' should look secret", secret[i]);
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		if (redact_secret_key(plain[i], strlen(plain[i])))
			fail_msg("'%s' should not look secret", plain[i]);
	/* the environment's rule knows passphrases too */
	assert_true(redact_secret_name("GPG_PASSPHRASE"));
}

#define CMDLINE_PLAIN                                                                              \
	"BOOT_IMAGE=/boot/vmlinuz-6.8.0-40-generic root=UUID=6b1f3c1e-0f64-4d6e-9a51-5d2b6c0f1e7a ro " \
	"quiet splash iommu=pt amd_iommu=on amdgpu.ppfeaturemask=0xffffffff amdgpu.runpm=0 "          \
	"vconsole.keymap=us keyboard=de spec_store_bypass_disable=on secretmem.enable=1 "

/* Secrets on the kernel command line (issue 22): the values of secret keys
 * go, with or without --anonymize; everything the checks read stays. */
static void test_secret_pairs(void **state)
{
	(void)state;
	const char *in = CMDLINE_PLAIN
		"password=hunter2 luks.key=/etc/luks.keyfile rd.luks.key=/keys/root.key:UUID=1234 "
		"api_token=tok_ABCdef0123456789 PASSWORD=Upper1 systemd.setenv=DB_PASSWORD=pa55 "
		"inst.vncpassword=\"two words\" wpa_psk='single quoted' empty_key= password=<redacted>\n";
	const char *want = CMDLINE_PLAIN
		"password=<redacted> luks.key=<redacted> rd.luks.key=<redacted> "
		"api_token=<redacted> PASSWORD=<redacted> systemd.setenv=DB_PASSWORD=<redacted> "
		"inst.vncpassword=\"<redacted>\" wpa_psk='<redacted>' empty_key= password=<redacted>\n";
	for (int anon = 0; anon < 2; anon++) {
		struct redactor rd;
		redactor_init(&rd, anon);
		char *out = redactor_apply_str(&rd, in);
		assert_string_equal(out, want);
		/* what the iommu check reads of /proc/cmdline is still there */
		assert_true(cmdline_has(out, "iommu=pt"));
		assert_true(cmdline_has(out, "amd_iommu=on"));
		assert_true(cmdline_has(out, "amdgpu.ppfeaturemask=0xffffffff"));
		/* deterministic, and its own output is left as it is */
		char *again = redactor_apply_str(&rd, in);
		assert_string_equal(again, out);
		free(again);
		again = redactor_apply_str(&rd, out);
		assert_string_equal(again, out);
		free(again);
		free(out);
		redactor_release(&rd);
	}
}

/* The same pairs in other captured text: ini files ("key = value", to the
 * end of the line), JSON strings (escaped quotes stay balanced), URL
 * queries, logs; Kconfig symbols and plain switches are not secrets. */
static void test_secret_pairs_elsewhere(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "[auth]\nDB_PASSWORD = Pa55 word here\r\nname = alice\n",
		  "[auth]\nDB_PASSWORD = <redacted>\r\nname = alice\n" },
		{ "{\"evidence\": \"quiet password=\\\"two words\\\" luks.key=abc\\\\def\\\"x splash\"}",
		  "{\"evidence\": \"quiet password=\\\"<redacted>\\\" luks.key=<redacted> splash\"}" },
		{ "GET /v1/models?api_token=abc123&page=2 HTTP/1.1", "GET /v1/models?api_token=<redacted> HTTP/1.1" },
		{ "[    0.000000] Kernel command line: ro password=hunter2 quiet\n",
		  "[    0.000000] Kernel command line: ro password=<redacted> quiet\n" },
		{ "CONFIG_KEYS=y\nCONFIG_SYSTEM_TRUSTED_KEYS=\"debian/certs.pem\"\nCONFIG_SECRETMEM=y\n",
		  "CONFIG_KEYS=y\nCONFIG_SYSTEM_TRUSTED_KEYS=\"debian/certs.pem\"\nCONFIG_SECRETMEM=y\n" },
		{ "auth=off session=1 cookie=no private=false", "auth=off session=1 cookie=no private=false" },
		{ "token=\"unterminated value\nnext line", "token=\"<redacted>\nnext line" },
		{ "a=b=c key=", "a=b=c key=" },
		/* a quote that closes a JSON string opens no value: the JSON still parses */
		{ "{\n  \"evidence\": \"ro password=\",\n  \"x\": \"token=\"\n}\n",
		  "{\n  \"evidence\": \"ro password=\",\n  \"x\": \"token=\"\n}\n" },
		/* an apostrophe is no quote */
		{ "it's password='abc def", "it's password=<redacted> def" },
	};
	struct redactor rd;
	redactor_init(&rd, false);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *out = redactor_apply_str(&rd, cases[i][0]);
		assert_string_equal(out, cases[i][1]);
		free(out);
	}
	redactor_release(&rd);
}

/* A bundle learns the kernel command line's secret values first: they are
 * then scrubbed wherever they show up without their key. */
static void test_learn_pairs(void **state)
{
	(void)state;
	struct redactor rd;
	redactor_init(&rd, false);
	const char *cmd = "ro luks.key=/etc/luks.keyfile inst.vncpassword=\"two words\" password=abc iommu=pt\n";
	redactor_learn_pairs(&rd, cmd, strlen(cmd));
	assert_true(strvec_contains(&rd.secrets, "/etc/luks.keyfile"));
	assert_true(strvec_contains(&rd.secrets, "two words"));
	assert_false(strvec_contains(&rd.secrets, "abc"));   /* too short to scrub elsewhere */
	assert_false(strvec_contains(&rd.secrets, "pt"));
	char *out = redactor_apply_str(&rd, "systemd-cryptsetup: using /etc/luks.keyfile; vnc: two words\n");
	assert_string_equal(out, "systemd-cryptsetup: using <redacted>; vnc: <redacted>\n");
	free(out);
	redactor_release(&rd);
}

/* Every spelling of an address (issue 22): IPv4 inside IPv6, addresses after
 * ':' as in ip=, MACs with ':', '-' or Cisco dots (one pseudonym for one
 * MAC whatever its spelling); netmasks, versions (WSL's kernel release)
 * and UUIDs stay. */
static void test_anonymize_address_forms(void **state)
{
	(void)state;
	const char *in =
		"ip=::ffff:192.168.7.5 ip=10.55.66.77::10.55.66.1:255.255.255.0:gpu-node07:eth0:off "
		"ifname=eth0:AA:BB:CC:DD:EE:FF BOOTIF=01-aa-bb-cc-dd-ee-ff mac aabb.ccdd.eeff "
		"peer 2001:db8::10.1.2.3 fe80::1%eth0 1:2:3:4:5:6:10.0.0.9 [::ffff:10.55.66.77]:22 "
		"password=hunter2 iommu=pt root=UUID=6b1f3c1e-0f64-4d6e-9a51-5d2b6c0f1e7a "
		"version 2024.1001.1200 pci 0000:03:00.0 at 12:34:56.789 "
		"wsl 5.15.153.1-microsoft-standard-WSL2 range 10.9.8.7-10.9.8.9\n";
	const char *want =
		"ip=ipv6-1 ip=ipv4-1::ipv4-2:255.255.255.0:host-1:eth0:off "
		"ifname=eth0:mac-1 BOOTIF=01-mac-1 mac mac-1 "
		"peer ipv6-2 ipv6-3%eth0 ipv6-4 [ipv6-5]:22 "
		"password=<redacted> iommu=pt root=UUID=6b1f3c1e-0f64-4d6e-9a51-5d2b6c0f1e7a "
		"version 2024.1001.1200 pci 0000:03:00.0 at 12:34:56.789 "
		"wsl 5.15.153.1-microsoft-standard-WSL2 range ipv4-3-ipv4-4\n";
	struct redactor rd;
	redactor_init(&rd, true);
	redactor_add(&rd, ANON_HOST, "gpu-node07");
	char *out = redactor_apply_str(&rd, in);
	assert_string_equal(out, want);
	char *again = redactor_apply_str(&rd, in);
	assert_string_equal(again, want);
	free(again);
	free(out);
	redactor_release(&rd);

	/* without --anonymize the addresses stay, the secret goes */
	redactor_init(&rd, false);
	out = redactor_apply_str(&rd, "ip=::ffff:192.168.7.5 aabb.ccdd.eeff password=hunter2");
	assert_string_equal(out, "ip=::ffff:192.168.7.5 aabb.ccdd.eeff password=<redacted>");
	free(out);
	redactor_release(&rd);
}

/* Inputs that would make a scan that backs up or rescans quadratic: each is
 * 1 MiB and must take no longer than a linear pass (CTest's timeout would
 * catch a quadratic one). */
static void test_linear(void **state)
{
	(void)state;
	static const char *const units[] = {
		"password=\"", "a=", "key = ", "::ffff:1.2.3.4:", "aabb.ccdd.", "1.1.", "1:1:",
		"aa:bb:cc:dd:ee:", "token=\\\"x", "k=\\", "https://a:b@",
	};
	for (size_t u = 0; u < ARRAY_SIZE(units); u++) {
		struct strbuf sb = STRBUF_INIT;
		while (sb.len < (1u << 20))
			strbuf_addstr(&sb, units[u]);
		struct redactor rd;
		redactor_init(&rd, true);
		redactor_learn_pairs(&rd, sb.buf, sb.len);
		size_t n;
		char *out = redactor_apply(&rd, sb.buf, sb.len, &n);
		assert_non_null(out);
		free(out);
		redactor_release(&rd);
		strbuf_release(&sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secret_names),
		cmocka_unit_test(test_url_credentials),
		cmocka_unit_test(test_scrub_everywhere),
		cmocka_unit_test(test_anonymize_consistent),
		cmocka_unit_test(test_serials),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_secret_keys),
		cmocka_unit_test(test_secret_pairs),
		cmocka_unit_test(test_secret_pairs_elsewhere),
		cmocka_unit_test(test_learn_pairs),
		cmocka_unit_test(test_anonymize_address_forms),
		cmocka_unit_test(test_linear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
