/* --upload URL: send a support bundle with libcurl.
 *
 * HTTPS PUT of the file (plain http only with `allow_http`) (or a multipart POST with the file in `form_field`),
 * TLS verification always on unless `insecure`, an extra CA file with
 * `cacert`, the proxy variables honoured (libcurl's default), a 10 s connect
 * timeout and a total deadline for all attempts. Connection errors and HTTP
 * 5xx are retried up to 3 times with exponential backoff (1 s, 2 s, 4 s);
 * 4xx is final. The server's reply body (a ticket id) is returned. */
#ifndef ROCMCHECK_UPLOAD_H
#define ROCMCHECK_UPLOAD_H

#include <stdbool.h>

#define UPLOAD_CONNECT_TIMEOUT_S 10
#define UPLOAD_TIMEOUT_S 300
#define UPLOAD_RETRIES 3
#define UPLOAD_REPLY_CAP (64 * 1024)

struct upload_opts {
	const char *url;
	const char *form_field;    /* NULL: PUT; else multipart POST with this field name */
	bool insecure;             /* --insecure: no TLS verification */
	bool allow_http;           /* --insecure-http: http:// URLs too (a local test server) */
	const char *cacert;        /* --cacert FILE */
	long timeout_s;            /* deadline for everything; 0: UPLOAD_TIMEOUT_S */
	bool progress;             /* draw a progress bar on stderr */
	unsigned backoff_ms;       /* first retry delay; 0: 1000 */
};

struct upload_result {
	long http_status;          /* last HTTP status, 0 when none arrived */
	int attempts;
	char *body;                /* the server's reply (capped), or NULL */
	char *error;               /* one line, when it failed */
};

/* Returns 0 when the server answered 2xx, else a negative errno (-EIO for an
 * HTTP error, -ETIMEDOUT, -ECONNREFUSED, -EINVAL for a bad URL or option)
 * with res->error set. The result's strings are the caller's
 * (upload_result_release). */
int upload_file(const char *path, const struct upload_opts *o, struct upload_result *res);
void upload_result_release(struct upload_result *res);

/* What a URL ending in '/' becomes for a PUT: the file's name appended
 * (as curl -T does). Caller owns. */
char *upload_target_url(const char *url, const char *path);

#endif
