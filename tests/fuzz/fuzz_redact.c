/* The redactor (bundle, --anonymize): arbitrary text, with a secret token
 * planted by the harness that must never survive, and beside it a kernel
 * command line's secret pair and address (issue 22): in text, the pair's
 * value never survives, and with --anonymize neither does the address
 * (no more of either than the input had elsewhere). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "redact.h"
#include "util.h"

#define PLANTED "Zq7sEcReTtOkEn4fuzz"
#define PAIR_VALUE "Kp9pAiRvAlUe3fuzz"
#define ADDRESS "10.77.88.99"

static size_t count(const char *hay, size_t n, const char *needle)
{
	size_t c = 0, l = strlen(needle);
	for (const char *p = hay; (p = memmem(p, n - (size_t)(p - hay), needle, l)); p += l)
		c++;
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	/* first byte: options and where the token goes */
	bool anonymize = data[0] & 1;
	size_t at = size > 1 ? (data[0] >> 1) % size : 0;
	data++;
	size--;
	if (at > size)
		at = size;
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, data, at);
	strbuf_addstr(&sb, " " PLANTED " api_token=" PAIR_VALUE " ip=::ffff:" ADDRESS " ");
	strbuf_add(&sb, data + at, size - at);

	struct redactor rd;
	redactor_init(&rd, anonymize);
	redactor_learn_env(&rd, "HF_TOKEN", PLANTED);
	/* the text teaches the redactor what it would learn in a bundle */
	char *text = fuzz_str(data, size);
	char *eq = strchr(text, '=');
	if (eq) {
		*eq = '\0';
		redactor_learn_env(&rd, text, eq + 1);
		*eq = '=';
	}
	redactor_learn_serials(&rd, text, size);
	redactor_learn_pairs(&rd, text, size);
	redactor_add(&rd, ANON_HOST, "fuzzhost");
	redactor_add(&rd, ANON_USER, "fuzzuser");
	size_t n;
	char *out = redactor_apply(&rd, sb.buf, sb.len, &n);
	FUZZ_ASSERT(!memmem(out, n, PLANTED, strlen(PLANTED)), "the planted secret survived redaction");
	if (!memchr(sb.buf, '\0', sb.len)) {
		FUZZ_ASSERT(count(out, n, PAIR_VALUE) <= count((const char *)data, size, PAIR_VALUE),
			    "the value of a secret key=value pair survived redaction");
		if (anonymize) {
			FUZZ_ASSERT(!memmem(out, n, " fuzzhost ", 10), "a registered host name survived anonymisation");
			FUZZ_ASSERT(count(out, n, ADDRESS) <= count((const char *)data, size, ADDRESS),
				    "an IPv4 address inside IPv6 survived anonymisation");
		}
	}
	/* the same text twice gives the same text: the same pseudonyms */
	size_t n2;
	char *again = redactor_apply(&rd, sb.buf, sb.len, &n2);
	FUZZ_ASSERT(n2 == n && !memcmp(again, out, n), "the same text redacted twice differs");
	free(again);
	free(out);
	free(text);
	redactor_release(&rd);
	strbuf_release(&sb);
	return 0;
}
