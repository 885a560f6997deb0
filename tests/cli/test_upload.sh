#!/bin/bash
# `rocmcheck bundle --upload` against a local server (tests/cli/upload_server.py)
# on 127.0.0.1 only: success, 503 twice then success, 404 (no retry, bundle
# kept), connection refused, a server that never answers (timeout), multipart
# POST, and HTTPS with a CA made here by openssl: verified with --cacert,
# refused without it, accepted with --insecure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
tests_dir=${TESTS_DIR:-$(dirname "$here")}
rocmcheck=${ROCMCHECK:-}
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
if [ -z "$rocmcheck" ] || [ ! -x "$rocmcheck" ] || [ -z "$python" ]; then
	echo "SKIP: needs ROCMCHECK and python3" >&2
	exit 77
fi
fixture=$tests_dir/fixtures/amd-rx7900xtx-ubuntu2204-healthy
[ -d "$fixture" ] || fixture=$tests_dir/bundle-data/small
if [ ! -d "$fixture" ]; then
	echo "SKIP: no fixture to bundle" >&2
	exit 77
fi

# Never leave 127.0.0.1, never through a proxy.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1

work=$(mktemp -d "${TMPDIR:-/tmp}/rocmcheck-upload.XXXXXX") || exit 1
server_pid=
stop_server() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
	fi
	server_pid=
}
trap 'stop_server; rm -rf "$work"' EXIT

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# start_server MODE [CERT KEY]: sets $port; the log and body are reset
start_server() {
	stop_server
	rm -f "$work/port" "$work/log" "$work/body"
	: >"$work/log"
	"$python" "$here/upload_server.py" "$1" "$work/port" "$work/log" "$work/body" "${@:2}" &
	server_pid=$!
	for _ in $(seq 100); do
		[ -s "$work/port" ] && break
		sleep 0.05
	done
	port=$(cat "$work/port" 2>/dev/null)
	[ -n "$port" ] || { fail "server ($1) did not start"; return 1; }
}

# bundle NAME ARGS...: runs the bundle command, sets $rc, $out, $err, $file
bundle() {
	file=$work/$1.tar.gz
	shift
	rm -f "$file"
	out=$("$rocmcheck" --sysroot "$fixture" bundle --level quick -o "$file" "$@" 2>"$work/stderr")
	rc=$?
	err=$(cat "$work/stderr")
}

requests() { wc -l <"$work/log" | tr -d ' '; }

# 1. success: PUT to URL/<file name>, the body is the bundle, the ticket is printed
start_server ok
bundle ok --upload "http://127.0.0.1:$port/upload/" --insecure-http
[ "$rc" = 0 ] || fail "ok: exit $rc: $err"
grep -q "TICKET-0001" <<<"$out" || fail "ok: the server's reply is not printed: $out"
[ "$(requests)" = 1 ] || fail "ok: $(requests) requests"
grep -q "^PUT /upload/ok.tar.gz$" "$work/log" || fail "ok: request was $(cat "$work/log")"
cmp -s "$file" "$work/body" || fail "ok: the body sent differs from the bundle"

# 1b. plain http without --insecure-http: a usage error, nothing written or sent
: >"$work/log"
bundle plain --upload "http://127.0.0.1:$port/upload/"
[ "$rc" = 2 ] || fail "http without --insecure-http: exit $rc, expected 2"
grep -q "only sent encrypted (https://); --insecure-http" <<<"$err" || fail "http refused without saying why: $err"
[ "$(requests)" = 0 ] || fail "http without --insecure-http: the server got $(requests) requests"
[ -e "$file" ] && fail "http without --insecure-http: a bundle was written"
bundle ftp --upload "ftp://127.0.0.1:$port/x/" --insecure-http
[ "$rc" = 2 ] || fail "ftp: exit $rc, expected 2"
bundle alone --insecure-http
[ "$rc" = 2 ] || fail "--insecure-http without --upload: exit $rc, expected 2"

# 2. 503 twice, then success
start_server 503x2
bundle retry --upload "http://127.0.0.1:$port/put/retry.tar.gz" --insecure-http
[ "$rc" = 0 ] || fail "503x2: exit $rc: $err"
[ "$(requests)" = 3 ] || fail "503x2: $(requests) requests, expected 3"
grep -q "TICKET-0003" <<<"$out" || fail "503x2: reply not printed: $out"
grep -q "HTTP 503" <<<"$err" || fail "503x2: the retries are not reported: $err"

# 3. 404: no retry, clear error, the bundle stays
start_server 404
bundle notfound --upload "http://127.0.0.1:$port/nobucket/" --insecure-http
[ "$rc" = 3 ] || fail "404: exit $rc"
[ "$(requests)" = 1 ] || fail "404: $(requests) requests, expected no retry"
grep -q "HTTP 404: no such bucket" <<<"$err" || fail "404: message: $err"
grep -qF "the bundle is still at $file" <<<"$err" || fail "404: does not say where the bundle is: $err"
[ -s "$file" ] || fail "404: the bundle was removed"

# 4. connection refused (a port nobody listens on): retried, then a clear error
stop_server
closed=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start=$(date +%s)
bundle refused --upload "http://127.0.0.1:$closed/x/" --insecure-http --upload-timeout 5
[ "$rc" = 3 ] || fail "refused: exit $rc"
grep -qiE "connect|refused" <<<"$err" || fail "refused: message: $err"
grep -q "retrying" <<<"$err" || fail "refused: no retry: $err"
grep -qF "still at $file" <<<"$err" || fail "refused: bundle location not said: $err"
[ -s "$file" ] || fail "refused: bundle removed"
[ $(( $(date +%s) - start )) -le 15 ] || fail "refused: took too long"

# 5. a server that never answers: the deadline ends it
start_server hang
start=$(date +%s)
bundle hang --upload "http://127.0.0.1:$port/x/" --insecure-http --upload-timeout 2
took=$(( $(date +%s) - start ))
[ "$rc" = 3 ] || fail "hang: exit $rc"
grep -qiE "timed out|no answer" <<<"$err" || fail "hang: message: $err"
[ "$took" -le 10 ] || fail "hang: took ${took}s with --upload-timeout 2"
[ -s "$file" ] || fail "hang: bundle removed"

# 6. multipart POST in a named field
start_server ok
bundle form --upload "http://127.0.0.1:$port/tickets" --insecure-http --upload-form attachment
[ "$rc" = 0 ] || fail "form: exit $rc: $err"
grep -q "^POST /tickets$" "$work/log" || fail "form: request was $(cat "$work/log")"
"$python" - "$work/body" "$file" <<'PY' || fail "form: the multipart body lacks the field or the file"
import sys
body = open(sys.argv[1], "rb").read()
data = open(sys.argv[2], "rb").read()
ok = b'name="attachment"' in body and b'filename="form.tar.gz"' in body and data in body
sys.exit(0 if ok else 1)
PY

# 7. HTTPS with a private CA
if command -v openssl >/dev/null; then
	(
		cd "$work" &&
		openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 \
			-subj "/CN=rocmcheck test CA" &&
		openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj "/CN=127.0.0.1" &&
		printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >ext.cnf &&
		openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt \
			-days 1 -extfile ext.cnf
	) >/dev/null 2>&1 || fail "openssl could not make the test CA"
	start_server ok "$work/srv.crt" "$work/srv.key"
	bundle tls --upload "https://127.0.0.1:$port/up/" --cacert "$work/ca.crt"
	[ "$rc" = 0 ] || fail "https --cacert: exit $rc: $err"
	grep -q "TICKET" <<<"$out" || fail "https --cacert: no ticket: $out"
	before=$(requests)
	bundle tlsno --upload "https://127.0.0.1:$port/up/"
	[ "$rc" = 3 ] || fail "https without the CA: exit $rc (verification must be on)"
	grep -qiE "certificate|SSL" <<<"$err" || fail "https without the CA: message: $err"
	[ "$(requests)" = "$before" ] || fail "https without the CA: the server got a request"
	[ -s "$file" ] || fail "https without the CA: bundle removed"
	bundle tlsinsecure --upload "https://127.0.0.1:$port/up/" --insecure
	[ "$rc" = 0 ] || fail "https --insecure: exit $rc: $err"
	stop_server
else
	echo "note: openssl not installed; HTTPS cases skipped" >&2
fi

# 8. usage
"$rocmcheck" --sysroot "$fixture" bundle --insecure -o "$work/u.tar.gz" 2>/dev/null
[ $? = 2 ] || fail "--insecure without --upload is not a usage error"
"$rocmcheck" --sysroot "$fixture" bundle --upload ftp://127.0.0.1/ -o "$work/u.tar.gz" 2>/dev/null
[ $? = 2 ] || fail "an ftp:// URL is not a usage error"
[ ! -e "$work/u.tar.gz" ] || fail "a usage error still wrote a bundle"

if [ "$failures" -gt 0 ]; then
	echo "$failures failure(s)" >&2
	exit 1
fi
echo "upload: all cases passed"
