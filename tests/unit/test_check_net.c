/* net.repos against servers on 127.0.0.1 only: one that answers, one that
 * answers 404, and a port where nothing listens. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_net.h"
#include "checks.h"
#include "profiles.h"
#include "report.h"

static int listen_fd = -1;
static int port, closed_port;
/* counted before the reply is written: the client cannot return from its
 * request before the count has moved */
static atomic_int served;

static void *serve(void *arg)
{
	(void)arg;
	for (;;) {
		int c = accept(listen_fd, NULL, NULL);
		if (c < 0)
			return NULL;
		char req[4096];
		size_t n = 0;
		while (n < sizeof(req) - 1) {
			ssize_t k = read(c, req + n, sizeof(req) - 1 - n);
			if (k <= 0)
				break;
			n += (size_t)k;
			req[n] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		req[n] = '\0';
		atomic_fetch_add(&served, 1);
		const char *reply = strstr(req, "/missing/") ? "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
							      : "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
		if (write(c, reply, strlen(reply)) < 0)
			perror("write");
		close(c);
	}
}

static int bind_local(int *p)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	socklen_t l = sizeof(a);
	getsockname(fd, (struct sockaddr *)&a, &l);
	*p = ntohs(a.sin_port);
	return fd;
}

static int setup(void **state)
{
	(void)state;
	/* only 127.0.0.1, and never through a proxy */
	static const char *const vars[] = { "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy" };
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++)
		unsetenv(vars[i]);
	setenv("no_proxy", "127.0.0.1", 1);
	listen_fd = bind_local(&port);
	if (listen_fd < 0 || listen(listen_fd, 16))
		return -1;
	/* a port that was free a moment ago, closed again: connection refused */
	int fd = bind_local(&closed_port);
	if (fd < 0)
		return -1;
	close(fd);
	pthread_t t;
	if (pthread_create(&t, NULL, serve, NULL))
		return -1;
	pthread_detach(t);
	return 0;
}

struct world {
	struct profiles *db;
	struct facts f;
	struct gpu g[2];
	struct sysroot sr;
};

static void world_init(struct world *w, bool nvidia)
{
	struct strvec errs = STRVEC_INIT;
	memset(w, 0, sizeof(*w));
	assert_int_equal(profiles_load(&w->db, NULL, &errs), 0);
	strvec_release(&errs);
	w->f.rocm.active = -1;
	w->f.cuda.active = -1;
	w->g[0].vendor = VENDOR_AMD;
	w->g[0].index = 0;
	w->g[1].vendor = VENDOR_NVIDIA;
	w->g[1].index = 1;
	w->f.gpus = w->g;
	w->f.ngpus = nvidia ? 2 : 1;
	w->f.sr = &w->sr;
}

static void set_index(char **slot, int p, const char *path)
{
	free(*slot);
	*slot = xasprintf("http://127.0.0.1:%d%s", p, path);
}

static const struct check_result *run(struct world *w, struct report *r, bool live, enum level level, bool online)
{
	struct check_ctx ctx = { .facts = &w->f, .db = w->db, .live = live, .level = level, .online = online };
	report_init(r, &w->f, w->db);
	check_net_defs[0].run(&ctx, r, &check_net_defs[0]);
	assert_int_equal(r->nresults, 1);
	return &r->results[0];
}

static void test_reachable(void **state)
{
	(void)state;
	struct world w;
	world_init(&w, false);
	struct prof_rocm *newest = (struct prof_rocm *)profiles_newest_rocm(w.db);
	assert_non_null(newest);
	set_index(&newest->torch_index, port, "/whl/rocm");
	int before = atomic_load(&served);
	struct report r;
	const struct check_result *c = run(&w, &r, true, LEVEL_STANDARD, true);
	assert_int_equal(c->status, ST_PASS);
	assert_non_null(strstr(c->summary, "1 server answered (127.0.0.1:"));
	assert_true(atomic_load(&served) > before);
	assert_true(c->nevidence >= 1);
	assert_true(str_endswith(c->evidence[0].path, "/whl/rocm/torch/"));
	assert_true(str_startswith(c->evidence[0].value, "HTTP 200"));
	assert_null(strstr(c->summary, "proxy")); /* no proxy variable in the facts */
	report_release(&r);

	/* the proxy variables come from the sysroot's environment, credentials
	 * hidden; no_proxy alone is no proxy */
	struct env_entry env[2] = { { (char *)"no_proxy", (char *)"127.0.0.1" },
				    { (char *)"https_proxy", (char *)"http://bob:s3cret@proxy.example:3128" } };
	w.sr.host.env = env;
	w.sr.host.nenv = 1;
	c = run(&w, &r, true, LEVEL_STANDARD, true);
	assert_int_equal(c->status, ST_PASS);
	assert_null(strstr(c->summary, "through the configured proxy"));
	report_release(&r);
	w.sr.host.nenv = 2;
	c = run(&w, &r, true, LEVEL_FULL, false);
	assert_non_null(strstr(c->summary, "through the configured proxy"));
	bool seen = false;
	for (size_t i = 0; i < c->nevidence; i++) {
		assert_null(strstr(c->evidence[i].value, "s3cret"));
		seen = seen || !strcmp(c->evidence[i].path, "env:https_proxy");
	}
	assert_true(seen);
	report_release(&r);
	w.sr.host.env = NULL;
	w.sr.host.nenv = 0;

	/* level full asks too; quick, a capture, or no --online do not */
	c = run(&w, &r, true, LEVEL_FULL, false);
	assert_int_equal(c->status, ST_PASS);
	report_release(&r);
	before = atomic_load(&served);
	c = run(&w, &r, true, LEVEL_STANDARD, false);
	assert_int_equal(c->status, ST_SKIP);
	assert_non_null(strstr(c->summary, "--online"));
	report_release(&r);
	c = run(&w, &r, true, LEVEL_QUICK, true);
	assert_int_equal(c->status, ST_SKIP);
	report_release(&r);
	c = run(&w, &r, false, LEVEL_FULL, true);
	assert_int_equal(c->status, ST_SKIP);
	assert_string_equal(c->summary, "needs the live machine");
	report_release(&r);
	assert_int_equal(atomic_load(&served), before);
	profiles_free(w.db);
}

static void test_unreachable(void **state)
{
	(void)state;
	struct world w;
	world_init(&w, true);
	struct prof_rocm *newest = (struct prof_rocm *)profiles_newest_rocm(w.db);
	set_index(&newest->torch_index, port, "/missing/rocm");
	assert_true(w.db->ncuda > 0);
	set_index(&w.db->cuda[w.db->ncuda - 1].torch_index, closed_port, "/whl/cu");
	struct report r;
	const struct check_result *c = run(&w, &r, true, LEVEL_STANDARD, true);
	assert_int_equal(c->status, ST_WARN);
	char *refused = xasprintf("cannot reach 127.0.0.1:%d", closed_port);
	assert_non_null(strstr(c->summary, refused));
	free(refused);
	assert_non_null(strstr(c->summary, "answers HTTP 404"));
	assert_non_null(strstr(c->summary, "pip install torch --index-url"));
	assert_non_null(c->fix.text);
	assert_int_equal(c->fix.commands.n, 2);
	assert_true(str_startswith(c->fix.commands.v[0], "curl -sSI"));
	report_release(&r);
	profiles_free(w.db);
}

static void test_route_urls(void **state)
{
	(void)state;
	/* no network here: only which URLs would be asked */
	struct world w;
	world_init(&w, false);
	w.f.os.present = true;
	w.f.os.id = (char *)"ubuntu";
	w.f.os.version_id = (char *)"22.04";
	w.f.os.version_codename = (char *)"jammy";
	w.f.kernel.release = (char *)"6.8.0-40-generic";
	/* whatever the newest release's index is (it may have none yet) */
	struct prof_rocm *newest = (struct prof_rocm *)profiles_newest_rocm(w.db);
	free(newest->torch_index);
	newest->torch_index = xstrdup("https://download.pytorch.org/whl/rocm9.9");
	struct check_ctx ctx = { .facts = &w.f, .db = w.db, .live = true, .level = LEVEL_STANDARD, .online = true };
	struct strvec urls = STRVEC_INIT, why = STRVEC_INIT;
	net_repo_urls(&ctx, &urls, &why);
	assert_int_equal(urls.n, why.n);
	assert_true(urls.n >= 2);
	assert_string_equal(urls.v[0], "https://download.pytorch.org/whl/rocm9.9/torch/");
	bool radeon = false;
	for (size_t i = 0; i < urls.n; i++) {
		assert_null(strchr(urls.v[i], '{'));
		if (str_startswith(urls.v[i], "https://repo.radeon.com/") && strstr(urls.v[i], "/jammy/"))
			radeon = true;
	}
	assert_true(radeon);
	strvec_release(&urls);
	strvec_release(&why);
	w.f.os.id = w.f.os.version_id = w.f.os.version_codename = w.f.kernel.release = NULL;
	profiles_free(w.db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reachable),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_route_urls),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
