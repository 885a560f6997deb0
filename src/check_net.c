/* net.repos: can this machine reach the servers an install needs? */
#include "check_net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "check_common.h"
#include "dl_libs.h"
#include "redact.h"
#include "route.h"
#include "dl_use.h"     /* last: library names become dl_libs.h pointers */

static void add_url(struct strvec *urls, struct strvec *purposes, const char *url, const char *purpose)
{
	if (!url || !*url || strvec_contains(urls, url) || urls->n >= NET_MAX_URLS)
		return;
	strvec_push(urls, url);
	if (purposes)
		strvec_push(purposes, purpose);
}

static char *index_url(const char *index)
{
	/* pip asks <index>/<project>/ for the list of wheels */
	return xasprintf("%s%storch/", index, str_endswith(index, "/") ? "" : "/");
}

/* http(s) URLs in a shell command line, up to a quote, space or ')'. */
static void urls_in(const char *cmd, struct strvec *out)
{
	const char *p = cmd;
	while ((p = strstr(p, "http")) != NULL) {
		if (!str_startswith(p, "https://") && !str_startswith(p, "http://")) {
			p += 4;
			continue;
		}
		size_t n = strcspn(p, " \t\"'`)<>|;&");
		char *u = xstrndup(p, n);
		if (!strchr(u, '{') && !strchr(u, '$'))
			strvec_push_owned(out, u);
		else
			free(u);
		p += n;
	}
}

void net_repo_urls(const struct check_ctx *ctx, struct strvec *urls, struct strvec *purposes)
{
	const struct facts *f = ctx->facts;
	bool amd = amd_gpu_expected(f), nv = nvidia_gpu_expected(f);
	if (!ctx->db)
		return;
	if (amd) {
		bool installed = false;
		const struct prof_rocm *rel = rocm_release_judged(ctx, &installed);
		if (rel && rel->torch_index) {
			char *u = index_url(rel->torch_index);
			char *why = xasprintf("`pip install torch --index-url %s` (PyTorch for ROCm %s)",
					      rel->torch_index, rel->version);
			add_url(urls, purposes, u, why);
			free(why);
			free(u);
		}
		if (rel) {
			/* the route's commands, rendered for this OS, name the package servers */
			struct strvec cmds = STRVEC_INIT;
			struct route_target t;
			route_target_of(f, &t);
			route_render(ctx->db, os_entry(ctx), rel, &t, &cmds);
			for (size_t i = 0; i < cmds.n; i++) {
				struct strvec found = STRVEC_INIT;
				urls_in(cmds.v[i], &found);
				for (size_t k = 0; k < found.n; k++) {
					char *why = xasprintf("the ROCm %s install for %s (`%s`)", rel->version,
							      os_display_name(ctx), cmds.v[i]);
					add_url(urls, purposes, found.v[k], why);
					free(why);
				}
				strvec_release(&found);
			}
			strvec_release(&cmds);
		}
	}
	if (nv && ctx->db->ncuda) {
		const struct prof_cuda *c = NULL;
		if (cuda_active(f))
			c = profiles_find_cuda(ctx->db, cuda_active(f)->version);
		if (!c)
			c = &ctx->db->cuda[ctx->db->ncuda - 1];
		if (c->torch_index) {
			char *u = index_url(c->torch_index);
			char *why = xasprintf("`pip install torch --index-url %s` (PyTorch for CUDA %s)",
					      c->torch_index, c->version);
			add_url(urls, purposes, u, why);
			free(why);
			free(u);
		}
	}
}

struct probe {
	CURL *h;
	char err[CURL_ERROR_SIZE];
};

static size_t discard(char *d, size_t s, size_t n, void *u)
{
	(void)d;
	(void)u;
	return s * n;
}

static const char *host_of(const char *url, char *buf, size_t n)
{
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	size_t l = strcspn(p, "/?#");
	if (l >= n)
		l = n - 1;
	memcpy(buf, p, l);
	buf[l] = '\0';
	return buf;
}

/* Ask every server at once: the slowest answer bounds the wait, not the sum. */
static CURLM *ask_servers(const struct strvec *urls, struct probe *pr)
{
	CURLM *m = curl_multi_init();
	for (size_t i = 0; i < urls->n; i++) {
		CURL *h = curl_easy_init();
		pr[i].h = h;
		curl_easy_setopt(h, CURLOPT_URL, urls->v[i]);
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
		curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
		curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
#if LIBCURL_VERSION_NUM >= 0x075500
		curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
		curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#endif
		curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, (long)NET_TIMEOUT_S);
		curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)NET_TIMEOUT_S);
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(h, CURLOPT_ERRORBUFFER, pr[i].err);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
		curl_easy_setopt(h, CURLOPT_USERAGENT, "rocmcheck/" ROCMCHECK_VERSION);
		curl_easy_setopt(h, CURLOPT_PRIVATE, (void *)&pr[i]);
		curl_multi_add_handle(m, h);
	}
	int running = 1;
	while (running) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		/* curl_multi_wait, not _poll (7.66): RHEL 8 has libcurl 7.61. It
		 * returns at once when curl has no socket yet (a resolver
		 * thread): then sleep a little instead of spinning. */
		int nfds = 0;
		if (running && curl_multi_wait(m, NULL, 0, 500, &nfds) == CURLM_OK && !nfds)
			nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
	return m;
}

/* Each server's answer as evidence of res; the hosts that answered go to
 * `good`, the failures in words to `bad`. Cleans the handles up; returns
 * how many failed. */
static size_t judge_answers(CURLM *m, struct probe *pr, const struct strvec *urls,
			    const struct strvec *purposes, struct check_result *res, struct strvec *good,
			    struct strvec *bad)
{
	size_t nbad = 0;
	CURLMsg *msg;
	int left;
	CURLcode *codes = xcalloc(urls->n, sizeof(*codes));
	bool *done = xcalloc(urls->n, sizeof(*done));
	while ((msg = curl_multi_info_read(m, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		for (size_t i = 0; i < urls->n; i++)
			if (pr[i].h == msg->easy_handle) {
				codes[i] = msg->data.result;
				done[i] = true;
			}
	}
	for (size_t i = 0; i < urls->n; i++) {
		long code = 0;
		double secs = 0;
		char host[256];
		curl_easy_getinfo(pr[i].h, CURLINFO_RESPONSE_CODE, &code);
		curl_easy_getinfo(pr[i].h, CURLINFO_TOTAL_TIME, &secs);
		host_of(urls->v[i], host, sizeof(host));
		char *shown = redact_url_credentials(urls->v[i], NULL);
		if (done[i] && codes[i] == CURLE_OK && code > 0 && code < 400) {
			result_evidence(res, shown, "HTTP %ld in %.2f s", code, secs);
			if (!strvec_contains(good, host))
				strvec_push(good, host);
		} else if (done[i] && codes[i] == CURLE_OK && code != 405 && code != 501) {
			result_evidence(res, shown, "HTTP %ld", code);
			strvec_pushf(bad, "%s answers HTTP %ld, so %s fails", host, code, purposes->v[i]);
			nbad++;
		} else if (done[i] && codes[i] == CURLE_OK) {
			/* the server does not do HEAD, but it answers */
			result_evidence(res, shown, "HTTP %ld (HEAD not allowed; the server answers)", code);
			if (!strvec_contains(good, host))
				strvec_push(good, host);
		} else {
			const char *why = !done[i] ? "no answer" : *pr[i].err ? pr[i].err : curl_easy_strerror(codes[i]);
			result_evidence(res, shown, "%s", why);
			strvec_pushf(bad, "cannot reach %s (%s), so %s fails", host, why, purposes->v[i]);
			nbad++;
		}
		free(shown);
		curl_multi_remove_handle(m, pr[i].h);
		curl_easy_cleanup(pr[i].h);
	}
	curl_multi_cleanup(m);
	free(codes);
	free(done);
	return nbad;
}

/* What the proxy variables say (the ones libcurl used), credentials hidden,
 * as evidence; true when one names a proxy (no_proxy alone is no proxy). */
static bool proxy_evidence(const struct check_ctx *ctx, struct check_result *res)
{
	static const char *const proxy_vars[] = { "https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY",
						  "no_proxy", "NO_PROXY" };
	bool proxy = false;
	for (size_t i = 0; i < ARRAY_SIZE(proxy_vars); i++) {
		const char *v = sysroot_getenv(ctx->facts->sr, proxy_vars[i]);
		if (!v || !*v)
			continue;
		char *p = xasprintf("env:%s", proxy_vars[i]);
		char *sv = redact_url_credentials(v, NULL);
		result_evidence(res, p, "%s", sv);
		free(sv);
		free(p);
		proxy = proxy || strcasecmp(proxy_vars[i], "no_proxy") != 0;
	}
	return proxy;
}

/* The summary, and for failures the advice and a curl command per server. */
static void net_summary(struct check_result *res, size_t nbad, const struct strvec *good,
			const struct strvec *bad, bool proxy)
{
	free(res->summary);
	if (!nbad) {
		char *hosts = strvec_join(good, ", ");
		res->summary = xasprintf("%zu server%s answered (%s)%s", good->n, good->n == 1 ? "" : "s", hosts,
					 proxy ? " through the configured proxy" : "");
		free(hosts);
	} else {
		char *all = strvec_join(bad, "; ");
		res->status = ST_WARN;
		res->summary = xasprintf("%s", all);
		free(all);
		result_fix_text(res,
				"This machine cannot fetch what an install needs. If it reaches the internet through "
				"a proxy, export https_proxy=http://PROXY:PORT (and no_proxy for local hosts) so "
				"pip, curl and wget use it; apt needs `Acquire::https::Proxy \"http://PROXY:PORT\";` "
				"in /etc/apt/apt.conf.d/95proxy and dnf `proxy=` in /etc/dnf/dnf.conf. Without "
				"internet access, mirror the ROCm repository and the wheel index internally. "
				"The commands below show the error each server gives.");
		for (size_t i = 0; i < res->nevidence && i < NET_MAX_URLS; i++) {
			const char *p = res->evidence[i].path;
			if (!str_startswith(p, "http") || str_startswith(res->evidence[i].value, "HTTP 2"))
				continue;
			const char *uv[] = { "url", p, NULL };
			char *cmd = NULL;
			if (profiles_render_command("curl -sSI --max-time 10 {url}", uv, &cmd) < 0) {
				char *w = shell_withheld(cmd);
				free(cmd);
				cmd = w;
			}
			result_fix_command(res, cmd);
			free(cmd);
		}
	}
}

static void check_net_repos(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	if (!ctx->live) {
		report_add(r, def, ST_SKIP, -1, "needs the live machine");
		return;
	}
	if (ctx->level == LEVEL_QUICK) {
		report_add(r, def, ST_SKIP, -1, "not at --level quick");
		return;
	}
	if (!ctx->online && ctx->level != LEVEL_FULL) {
		report_add(r, def, ST_SKIP, -1, "off by default: `rocmcheck doctor --online` asks the servers");
		return;
	}
	struct strvec urls = STRVEC_INIT, purposes = STRVEC_INIT;
	net_repo_urls(ctx, &urls, &purposes);
	if (!urls.n) {
		report_add(r, def, ST_SKIP, -1, "the profiles name no package or wheel server for this machine");
		goto out;
	}
	struct strbuf lerr = STRBUF_INIT;
	if (dl_curl_load(&lerr)) {
		report_add(r, def, ST_ERROR, -1, "%s", lerr.buf);
		strbuf_release(&lerr);
		goto out;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		report_add(r, def, ST_ERROR, -1, "libcurl failed to initialise");
		goto out;
	}
	struct probe *pr = xcalloc(urls.n, sizeof(*pr));
	CURLM *m = ask_servers(&urls, pr);
	struct strvec bad = STRVEC_INIT, good = STRVEC_INIT;
	struct check_result *res = report_add(r, def, ST_PASS, -1, "%s", "");
	size_t nbad = judge_answers(m, pr, &urls, &purposes, res, &good, &bad);
	free(pr);
	bool proxy = proxy_evidence(ctx, res);
	net_summary(res, nbad, &good, &bad, proxy);
	strvec_release(&bad);
	strvec_release(&good);
out:
	strvec_release(&urls);
	strvec_release(&purposes);
}

const struct check_def check_net_defs[] = {
	{ "net.repos", "network", "Package and wheel servers reachable", check_net_repos, CHECK_LIVE_ONLY,
	  "Live only, and only with `rocmcheck doctor --online` or at --level full (never at quick): asks "
	  "the servers an install needs, as the profiles name them for this machine - the PyTorch wheel "
	  "index of the installed (else newest) ROCm release as pip reads it (<index>/torch/), the "
	  "package URLs of the ROCm install route for this OS (repo.radeon.com), and with an NVIDIA GPU "
	  "the CUDA wheel index - with HEAD requests, " "5 s each, all at once, through the proxy the "
	  "environment configures (https_proxy, no_proxy).\n\n"
	  "warn when one cannot be reached (DNS, connection, TLS, timeout) or answers 4xx/5xx: then "
	  "`pip install torch --index-url ...` fails with `Could not find a version that satisfies the "
	  "requirement torch` or `ConnectionError`, and `apt-get update` with `Could not connect to "
	  "repo.radeon.com` or `Temporary failure resolving`. pass when every one answers.\n\n"
	  "Fix: set https_proxy for pip/curl, Acquire::https::Proxy for apt, proxy= for dnf, or mirror "
	  "the repository and index internally; the fix lists a curl command per failing URL." },
	{ 0 },
};
