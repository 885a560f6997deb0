#include "upload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dl_libs.h"
#include "redact.h"
#include "util.h"
#include "dl_use.h"     /* last: library names become dl_libs.h pointers */

struct reply {
	struct strbuf body;
	bool capped;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *user)
{
	struct reply *r = user;
	size_t n = size * nmemb;
	size_t room = UPLOAD_REPLY_CAP > r->body.len ? UPLOAD_REPLY_CAP - r->body.len : 0;
	if (n > room)
		r->capped = true;
	strbuf_add(&r->body, data, n < room ? n : room);
	return n;
}

static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	(void)dltotal;
	(void)dlnow;
	int *last = user;
	if (ultotal <= 0)
		return 0;
	int pct = (int)(ulnow * 100 / ultotal);
	if (pct == *last)
		return 0;
	*last = pct;
	char bar[31];
	int fill = pct * 30 / 100;
	for (int i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : ' ';
	bar[30] = '\0';
	fprintf(stderr, "\rupload [%s] %3d%% %.1f/%.1f MiB", bar, pct, (double)ulnow / 1048576.0,
		(double)ultotal / 1048576.0);
	return 0;
}

char *upload_target_url(const char *url, const char *path)
{
	if (!str_endswith(url, "/"))
		return xstrdup(url);
	const char *base = strrchr(path, '/');
	return xasprintf("%s%s", url, base ? base + 1 : path);
}

void upload_result_release(struct upload_result *res)
{
	free(res->body);
	free(res->error);
	res->body = res->error = NULL;
}

static bool retryable(CURLcode c)
{
	switch (c) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_OPERATION_TIMEDOUT:
		return true;
	default:
		return false;
	}
}

static int errno_of(CURLcode c)
{
	switch (c) {
	case CURLE_COULDNT_CONNECT: return ECONNREFUSED;
	case CURLE_OPERATION_TIMEDOUT: return ETIMEDOUT;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY: return EHOSTUNREACH;
	case CURLE_URL_MALFORMAT:
	case CURLE_UNSUPPORTED_PROTOCOL: return EINVAL;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CONNECT_ERROR: return EPROTO;
	default: return EIO;
	}
}

/* One line from a reply body for an error message. */
static char *first_line(const char *s)
{
	if (!s)
		return xstrdup("");
	size_t n = strcspn(s, "\r\n");
	if (n > 200)
		n = 200;
	char *l = xstrndup(s, n);
	for (char *p = l; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	return l;
}

/* One upload attempt's handle, set up for `url` from the open file `fp`. */
struct attempt {
	CURL *c;
	curl_mime *mime;
	struct curl_slist *hdrs;
	struct reply reply;
	char errbuf[CURL_ERROR_SIZE];
	int last_pct;
};

static void attempt_setup(struct attempt *a, const struct upload_opts *o, const char *url, const char *path,
			  FILE *fp, curl_off_t size, long left_ms)
{
	memset(a, 0, sizeof(*a));
	strbuf_init(&a->reply.body);
	a->last_pct = -1;
	CURL *c = a->c = curl_easy_init();
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, a->errbuf);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, o->allow_http ? "http,https" : "https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS,
			 (long)(o->allow_http ? CURLPROTO_HTTP | CURLPROTO_HTTPS : CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)UPLOAD_CONNECT_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, left_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, o->insecure ? 0L : 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, o->insecure ? 0L : 2L);
	if (o->cacert)
		curl_easy_setopt(c, CURLOPT_CAINFO, o->cacert);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "rocmcheck/" ROCMCHECK_VERSION);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &a->reply);
	if (o->progress) {
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, &a->last_pct);
	}
	if (o->form_field) {
		a->mime = curl_mime_init(c);
		curl_mimepart *part = curl_mime_addpart(a->mime);
		curl_mime_name(part, o->form_field);
		curl_mime_filedata(part, path);
		curl_mime_filename(part, base);
		curl_mime_type(part, "application/gzip");
		curl_easy_setopt(c, CURLOPT_MIMEPOST, a->mime);
	} else {
		curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(c, CURLOPT_READDATA, fp);
		curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, size);
	}
	if (!o->form_field)
		a->hdrs = curl_slist_append(a->hdrs, "Content-Type: application/gzip");
	/* no "Expect: 100-continue" round trip */
	a->hdrs = curl_slist_append(a->hdrs, "Expect:");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, a->hdrs);
}

int upload_file(const char *path, const struct upload_opts *o, struct upload_result *res)
{
	memset(res, 0, sizeof(*res));
	long timeout_s = o->timeout_s > 0 ? o->timeout_s : UPLOAD_TIMEOUT_S;
	unsigned backoff = o->backoff_ms ? o->backoff_ms : 1000;
	struct stat st;
	char *url = NULL, *shown = NULL;
	int ret = 0;

	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		res->error = xasprintf("cannot read %s: %s", path, strerror(errno ? errno : EINVAL));
		return -ENOENT;
	}
	if (!str_startswith(o->url, "https://") && !(o->allow_http && str_startswith(o->url, "http://"))) {
		res->error = xstrdup(o->allow_http ? "--upload needs an https:// or http:// URL"
						   : "--upload needs an https:// URL (http:// only with --insecure-http)");
		return -EINVAL;
	}
	struct strbuf lerr = STRBUF_INIT;
	ret = dl_curl_load(&lerr);
	if (ret) {
		res->error = strbuf_detach(&lerr);
		return ret;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		res->error = xstrdup("libcurl failed to initialise");
		return -EIO;
	}
	url = o->form_field ? xstrdup(o->url) : upload_target_url(o->url, path);
	shown = redact_url_credentials(url, NULL);
	long long deadline = monotonic_ms() + timeout_s * 1000LL;

	for (int attempt = 0;; attempt++) {
		long long left = deadline - monotonic_ms();
		if (left <= 0) {
			if (!res->error)
				res->error = xasprintf("%s: no answer within %ld s", shown, timeout_s);
			ret = -ETIMEDOUT;
			break;
		}
		FILE *fp = fopen(path, "rb");
		if (!fp) {
			ret = -errno;
			free(res->error);
			res->error = xasprintf("cannot read %s: %s", path, strerror(errno));
			break;
		}
		struct attempt at;
		attempt_setup(&at, o, url, path, fp, (curl_off_t)st.st_size, (long)left);
		CURL *c = at.c;
		res->attempts++;

		CURLcode cc = curl_easy_perform(c);
		if (o->progress && at.last_pct >= 0)
			fputc('\n', stderr);
		long code = 0;
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		res->http_status = code;
		curl_slist_free_all(at.hdrs);
		curl_mime_free(at.mime);
		curl_easy_cleanup(c);
		fclose(fp);
		struct reply reply = at.reply;
		const char *errbuf = at.errbuf;

		bool again = false;
		free(res->error);
		res->error = NULL;
		if (cc == CURLE_OK && code >= 200 && code < 300) {
			free(res->body);
			res->body = strbuf_detach(&reply.body);
			ret = 0;
			strbuf_release(&reply.body);
			break;
		}
		if (cc == CURLE_OK) {
			char *l = first_line(reply.body.buf);
			res->error = xasprintf("%s: the server answered HTTP %ld%s%s", shown, code, *l ? ": " : "", l);
			free(l);
			ret = -EIO;
			again = code >= 500;
		} else {
			const char *why = *errbuf ? errbuf : curl_easy_strerror(cc);
			if (cc == CURLE_OPERATION_TIMEDOUT)
				res->error = xasprintf("%s: timed out (--upload-timeout %ld): %s", shown, timeout_s, why);
			else
				res->error = xasprintf("%s: %s", shown, why);
			ret = -errno_of(cc);
			again = retryable(cc);
		}
		strbuf_release(&reply.body);
		if (!again || attempt >= UPLOAD_RETRIES)
			break;
		/* back off, but never past the deadline */
		long long wait = (long long)backoff << attempt;
		if (monotonic_ms() + wait >= deadline)
			break;
		fprintf(stderr, "rocmcheck: upload attempt %d failed (%s); retrying in %lld s\n", attempt + 1,
			res->error, wait / 1000);
		struct timespec ts = { (time_t)(wait / 1000), (long)(wait % 1000) * 1000000L };
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	free(url);
	free(shown);
	return ret;
}
