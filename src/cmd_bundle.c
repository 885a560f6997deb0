/* `rocmcheck bundle`: run the doctor while the sysroot layer records what
 * it reads, then write (and optionally upload) a support bundle. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bundle.h"
#include "checks.h"
#include "cli.h"
#include "cli_opt.h"
#include "dl_libs.h"
#include "out.h"
#include "outfile.h"
#include "redact.h"
#include "upload.h"
#include "policy.h"

static const char about[] =
	"Run the doctor and write a support bundle: a .tar.gz with every file the\n"
	"checks read (replay it with `rocmcheck --replay FILE doctor`), the reports,\n"
	"kernel messages and tool output, and a manifest with SHA-256 sums.\n"
	"Secrets in the environment are redacted; nothing else leaves the machine\n"
	"unless --upload is given.\n"
	"\n"
	"Exit status: as for doctor (0 or 1) once the bundle is written (and sent);\n"
	"2 usage error; 3 the bundle could not be written or sent (a bundle that\n"
	"was written stays on disk, and the message says where).\n";

static char *render_json(const struct report *r)
{
	json_t *doc = out_json_report(r);
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (!s)
		return NULL;
	char *out = xasprintf("%s\n", s);
	free(s);
	return out;
}

static char *render_text(const struct cli *cli, const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (!fp)
		return NULL;
	struct out_opts o;
	out_opts_init(&o, cli, fp);
	o.color = false;
	o.utf8 = true;
	o.verbosity = 1; /* the engineer reading it wants the evidence */
	out_text_report(fp, r, &o);
	if (fclose(fp)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The upload options agree with each other: 0, or a usage error. A bundle
 * leaves the machine encrypted; http:// only with --insecure-http. */
static int upload_opts_check(struct upload_opts *up, bool want_upload_opts, bool insecure_http)
{
	if (want_upload_opts && !up->url)
		return cli_usage_error("bundle", "--upload-form, --upload-timeout, --cacert, --insecure and "
				       "--insecure-http go with --upload URL");
	if (up->url && !insecure_http && str_startswith(up->url, "http://"))
		return cli_usage_error("bundle", "--upload: a support bundle is only sent encrypted (https://); "
				       "--insecure-http allows http:// for a local test server");
	up->allow_http = insecure_http;
	return 0;
}

/* Before anything is gathered: an upload needs libcurl and a bundle file it
 * can read back, and -o must name something the bundle may be written to. */
static int bundle_preflight(const struct upload_opts *up, const char *output)
{
	struct strbuf why = STRBUF_INIT;
	bool regular = true;
	int status = EXIT_OK;
	if (output && outfile_check(output, &regular, &why)) {
		fprintf(stderr, "rocmcheck: bundle: %s\n", why.buf);
		status = EXIT_TROUBLE;
	} else if (output && !strcmp(output, "-") && isatty(STDOUT_FILENO)) {
		fputs("rocmcheck: bundle: refusing to write a gzip archive to a terminal "
		      "(redirect standard output, or give -o FILE)\n", stderr);
		status = EXIT_TROUBLE;
	} else if (up->url && !regular) {
		fprintf(stderr, "rocmcheck: bundle: --upload sends the bundle file; %s is not a regular file "
				"it could be read back from\n", output);
		status = EXIT_TROUBLE;
	} else if (up->url) {
		/* no bundle is written when it could not be sent anyway */
		struct strbuf err = STRBUF_INIT;
		if (dl_curl_load(&err) < 0) {
			fprintf(stderr, "rocmcheck: bundle --upload: %s\n", err.len ? err.buf : "cannot load libcurl");
			status = EXIT_TROUBLE;
		}
		strbuf_release(&err);
	}
	strbuf_release(&why);
	return status;
}

/* Render the reports and write the bundle to `output`; EXIT_OK or EXIT_TROUBLE. */
static int write_bundle(struct cli *cli, const struct report *r, const char *output, enum level level,
			bool anonymize)
{
	char *json = render_json(r), *text = render_text(cli, r);
	struct strbuf err = STRBUF_INIT;
	long long size = -1;
	int status = EXIT_OK;
	if (!json || !text) {
		fputs("rocmcheck: bundle: cannot render the report\n", stderr);
		status = EXIT_TROUBLE;
		goto out;
	}
	struct bundle_opts bo = {
		.output = output,
		.anonymize = anonymize,
		.level = level,
		.profiles_version = cli->db ? cli->db->db_version : NULL,
		.report_json = json,
		.report_txt = text,
		.report = r,
		.logs = cli->sr.live,
		.written = &size,
		.policy = cli->policy ? cli->policy->text : NULL,
		.policy_len = cli->policy ? cli->policy->len : 0,
	};
	if (bundle_write(&cli->sr, &cli->facts, &bo, &err)) {
		fprintf(stderr, "rocmcheck: bundle: %s\n", strbuf_cstr(&err));
		status = EXIT_TROUBLE;
		goto out;
	}
	/* when the bundle is stdout (-o -, -o /dev/stdout), the note goes to stderr */
	bool to_stdout = outfile_is_stdout(output);
	fprintf(to_stdout ? stderr : stdout, "Support bundle written: %s (%lld bytes)%s\n",
		strcmp(output, "-") ? output : "standard output", size, anonymize ? ", anonymised" : "");
out:
	strbuf_release(&err);
	free(json);
	free(text);
	return status;
}

/* Upload the written bundle and print the server's answer; 0 or -1. */
static int send_bundle(const char *output, struct upload_opts *up)
{
	struct upload_result res;
	int ret = 0;
	fflush(stdout);
	up->progress = isatty(2) != 0;
	if (upload_file(output, up, &res)) {
		fprintf(stderr, "rocmcheck: upload failed after %d attempt%s: %s\n"
				"rocmcheck: the bundle is still at %s\n",
			res.attempts, res.attempts == 1 ? "" : "s", res.error ? res.error : "error", output);
		ret = -1;
	} else {
		char *shown = redact_url_credentials(up->url, NULL);
		printf("Uploaded to %s (HTTP %ld). The server answered:\n", shown, res.http_status);
		/* the reply is the server's text: no control sequences reach the terminal */
		out_text_clean(stdout, res.body && *res.body ? res.body : "(nothing)", cli_utf8());
		if (!res.body || !str_endswith(res.body, "\n"))
			putchar('\n');
		free(shown);
	}
	upload_result_release(&res);
	return ret;
}

int cmd_bundle(struct cli *cli, int argc, char **argv)
{
	enum level level = LEVEL_STANDARD;
	const char *output = NULL;
	struct upload_opts up = { 0 };
	int anonymize = 0, insecure = 0, insecure_http = 0, upload_timeout = 0;
	const struct cli_option opts[] = {
		CLI_STRING('o', "output", &output, "FILE", "where to write (default:\n"
			   "rocmcheck-bundle-<host>-<UTC time>.tar.gz here);\n"
			   "- is standard output; a device or FIFO is written\n"
			   "in place, a regular file replaced when complete"),
		CLI_OPT_LEVEL(&level),
		CLI_FLAG(0, "anonymize", &anonymize, 1, "also replace host name, user name, home, IP and MAC\n"
			 "addresses and GPU serials with stable pseudonyms"),
		CLI_FLAG(0, "anonymise", &anonymize, 1, "the same"),
		CLI_STRING(0, "upload", &up.url, "URL", "send the bundle: HTTPS PUT (a URL ending in / gets\n"
			   "the file name appended)"),
		CLI_STRING(0, "upload-form", &up.form_field, "FIELD", "send it as a multipart POST in this form field"),
		CLI_NUMBER("upload-timeout", &upload_timeout, 1, 86400, "SECONDS",
			   "give up uploading after this long (default 300)"),
		CLI_STRING(0, "cacert", &up.cacert, "FILE", "trust this CA certificate too (a private server)"),
		CLI_FLAG(0, "insecure", &insecure, 1, "do not verify the server's TLS certificate"),
		CLI_FLAG(0, "insecure-http", &insecure_http, 1, "allow an http:// URL (unencrypted: a local test\n"
			 "server only)"),
		CLI_END,
	};
	char *outname = NULL;
	struct report r;
	bool have_report = false;
	int status = cli_parse(cli, "bundle", opts, argc, argv, NULL);
	if (status != EXIT_OK)
		goto out;
	if (cli->help) {
		cli_help(cli, "bundle", "[OPTIONS]", about, opts);
		goto out;
	}
	up.timeout_s = upload_timeout;
	up.insecure = insecure != 0;
	if (up.url && !str_startswith(up.url, "https://") && !str_startswith(up.url, "http://")) {
		cli_usage_error("bundle", "--upload needs an https:// URL, not '%s'", up.url);
		goto usage;
	}
	if (up.form_field && strpbrk(up.form_field, "\"\r\n;")) {
		cli_usage_error("bundle", "--upload-form needs a form field name");
		goto usage;
	}
	if (up.cacert && access(up.cacert, R_OK)) {
		cli_usage_error("bundle", "--cacert %s: %s", up.cacert, strerror(errno));
		goto usage;
	}
	if (upload_opts_check(&up, up.form_field || upload_timeout || up.cacert || insecure || insecure_http,
			      insecure_http != 0))
		goto usage;
	status = bundle_preflight(&up, output);
	if (status != EXIT_OK)
		goto out;
	status = cli_ready(cli, "bundle");
	if (status != EXIT_OK)
		goto out;

	struct doctor_run d = { level, NULL, NULL, 0, false, false };   /* timeout 0: the defaults */
	doctor_report(cli, &d, &r);
	have_report = true;
	if (!output) {
		outname = bundle_default_name(anonymize ? "anonymized" : cli->sr.host.nodename,
					      (long long)time(NULL));
		output = outname;
	}
	status = write_bundle(cli, &r, output, level, anonymize != 0);
	if (status != EXIT_OK)
		goto out;
	status = r.exit_status;
	if (up.url && send_bundle(output, &up) != 0)
		status = EXIT_TROUBLE;
	goto out;
usage:
	status = EXIT_USAGE;
out:
	if (have_report)
		report_release(&r);
	free(outname);
	return status;
}
