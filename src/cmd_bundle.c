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
#include "dl_libs.h"
#include "out.h"
#include "redact.h"
#include "upload.h"

static const char about[] =
	"Run the doctor and write a support bundle: a .tar.gz with every file the\n"
	"checks read (replay it with `rocmcheck --replay FILE doctor`), the reports,\n"
	"kernel messages and tool output, and a manifest with SHA-256 sums.\n"
	"Secrets in the environment are redacted; nothing else leaves the machine\n"
	"unless --upload is given.\n"
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

int cmd_bundle(struct cli *cli, int argc, char **argv)
{
	enum level level = LEVEL_STANDARD;
	const char *output = NULL;
	struct upload_opts up = { 0 };
	int anonymize = 0, insecure = 0, upload_timeout = 0;
	const struct cli_option opts[] = {
		CLI_STRING('o', "output", &output, "FILE", "where to write (default:\n"
			   "rocmcheck-bundle-<host>-<UTC time>.tar.gz here)"),
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
		CLI_END,
	};
	char *outname = NULL, *err = NULL, *json = NULL, *text = NULL;
	struct report r;
	bool have_report = false;
	int status = cli_parse(cli, "bundle", opts, argc, argv, NULL);
	if (status != EXIT_OK)
		goto out;
	if (cli->help) {
		cli_print_usage(stdout, "bundle", "[OPTIONS]", about, opts);
		goto out;
	}
	up.timeout_s = upload_timeout;
	up.insecure = insecure != 0;
	if ((up.form_field || upload_timeout || up.cacert || insecure) && !up.url) {
		cli_usage_error("bundle", "--upload-form, --upload-timeout, --cacert and --insecure go with --upload URL");
		goto usage;
	}
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
	if (up.url) {
		/* no bundle is written when it could not be sent anyway */
		char *why = NULL;
		if (dl_curl_load(&why) < 0) {
			fprintf(stderr, "rocmcheck: bundle --upload: %s\n", why ? why : "cannot load libcurl");
			free(why);
			status = EXIT_TROUBLE;
			goto out;
		}
	}
	status = cli_ready(cli, "bundle");
	if (status != EXIT_OK)
		goto out;

	struct doctor_run d = { level, NULL, NULL, 60, false, false };
	doctor_report(cli, &d, &r);
	have_report = true;
	json = render_json(&r);
	text = render_text(cli, &r);
	if (!json || !text) {
		fputs("rocmcheck: bundle: cannot render the report\n", stderr);
		status = EXIT_TROUBLE;
		goto out;
	}

	if (!output) {
		outname = bundle_default_name(anonymize ? "anonymized" : cli->sr.host.nodename,
					      (long long)time(NULL));
		output = outname;
	}
	struct bundle_opts bo = {
		.output = output,
		.anonymize = anonymize,
		.level = level_name(level),
		.profiles_version = cli->db ? cli->db->db_version : NULL,
		.report_json = json,
		.report_txt = text,
		.logs = cli->sr.live,
	};
	if (bundle_write(&cli->sr, &cli->facts, &bo, &err)) {
		fprintf(stderr, "rocmcheck: bundle: %s\n", err);
		status = EXIT_TROUBLE;
		goto out;
	}
	struct stat st;
	long long size = stat(output, &st) == 0 ? (long long)st.st_size : -1;
	printf("Support bundle written: %s (%lld bytes)%s\n", output, size,
	       anonymize ? ", anonymised" : "");
	status = r.exit_status;

	if (up.url) {
		struct upload_result res;
		fflush(stdout);
		up.progress = isatty(2) != 0;
		if (upload_file(output, &up, &res)) {
			fprintf(stderr, "rocmcheck: upload failed after %d attempt%s: %s\n"
					"rocmcheck: the bundle is still at %s\n",
				res.attempts, res.attempts == 1 ? "" : "s", res.error ? res.error : "error", output);
			status = EXIT_TROUBLE;
		} else {
			char *shown = redact_url_credentials(up.url, NULL);
			printf("Uploaded to %s (HTTP %ld). The server answered:\n", shown, res.http_status);
			/* the reply is the server's text: no control sequences reach the terminal */
			out_text_clean(stdout, res.body && *res.body ? res.body : "(nothing)", cli_utf8());
			if (!res.body || !str_endswith(res.body, "\n"))
				putchar('\n');
			free(shown);
		}
		upload_result_release(&res);
	}
	goto out;
usage:
	status = EXIT_USAGE;
out:
	if (have_report)
		report_release(&r);
	free(outname);
	free(err);
	free(json);
	free(text);
	return status;
}
