#!/bin/bash
# `rocmcheck profiles update` against a local HTTPS mirror with a test CA
# (tests/cli/profiles_server.py) and archives made by ci/profiles-release
# with throwaway keys (the test build trusts one more key through
# ROCMCHECK_TEST_PROFILES_KEY; a release build has no such hook): a good
# update over HTTPS and file://, then every refusal, each leaving the
# installed copy as it was; then what later runs do with a tampered,
# truncated or unsigned installed copy (ignored with a warning, never used).
. "$(dirname "$0")/lib.sh"
command -v openssl >/dev/null || { echo "SKIP: no openssl to make keys and the test CA" >&2; exit 77; }
# the throwaway key and the moved system directory are test hooks: without
# them a good update cannot verify, and as root one would write /var/lib
if ! grep -q '^ROCMCHECK_TEST_HOOKS:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
	echo "SKIP: built without ROCMCHECK_TEST_HOOKS (no test key can be trusted)" >&2
	exit 77
fi
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
unset https_proxy HTTPS_PROXY all_proxy ALL_PROXY
release=$SOURCE_DIR/ci/profiles-release
export ROCMCHECK   # ci/profiles-release validates with it

# ---- keys, CA, archives
cd "$T" || exit 1
"$release" --keygen key.pem >/dev/null && "$release" --keygen other.pem >/dev/null || { fail "keygen"; finish; }
pub=$(openssl pkey -in key.pem -pubout -outform DER | tail -c 32 | od -An -tx1 -v | tr -d ' \n')
export ROCMCHECK_TEST_PROFILES_KEY=$pub XDG_DATA_HOME=$T/xdg ROCMCHECK_TEST_SYSTEM_PROFILES=$T/sys
if [ "$(id -u)" = 0 ]; then dest=$T/sys; else dest=$T/xdg/rocmcheck/profiles; fi
(
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 -subj "/CN=rocmcheck test CA" &&
	openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj "/CN=127.0.0.1" &&
	printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >ext.cnf &&
	openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 1 -extfile ext.cnf
) >/dev/null 2>&1 || { fail "openssl could not make the test CA"; finish; }

mkdir -p www
# make NAME VERSION [EXPIRES [KEY]]: www/NAME.tar.gz(.sig), the shipped profiles at VERSION
make() {
	rm -rf "src-$1" && cp -r "$SOURCE_DIR/profiles" "src-$1" &&
		sed -i "s/^version = .*/version = $2/" "src-$1/database.ini" &&
		"$release" --key "${4:-key.pem}" --profiles "src-$1" --out "out-$1" --expires "${3:-2100.01.01}" \
			>/dev/null 2>&1 &&
		mv "out-$1/rocmcheck-profiles.tar.gz" "www/$1.tar.gz" &&
		mv "out-$1/rocmcheck-profiles.tar.gz.sig" "www/$1.tar.gz.sig" || fail "cannot make archive $1"
}
make good 2099.01.01
make newer 2099.02.01
make older 2098.06.01
make ancient 2001.01.01
make expired 2099.03.01 2020.01.01
make unknownkey 2099.04.01 2100.01.01 other.pem
cp www/good.tar.gz www/badsig.tar.gz && cp www/newer.tar.gz.sig www/badsig.tar.gz.sig
cp www/good.tar.gz www/unsigned.tar.gz
cp www/good.tar.gz www/garbagesig.tar.gz && echo "not a signature" >www/garbagesig.tar.gz.sig
head -c 9000 www/good.tar.gz >www/truncated.tar.gz && "$release" --sign www/truncated.tar.gz --key key.pem
head -c $((9 * 1024 * 1024)) /dev/urandom >www/huge.tar.gz && "$release" --sign www/huge.tar.gz --key key.pem
# hostile archives, validly signed: the reader must refuse them all the same
"$PYTHON" - "$SOURCE_DIR/profiles" www <<'PY' || fail "cannot make the hostile archives"
import io, os, sys, tarfile
src, out = sys.argv[1], sys.argv[2]
import hashlib
def add(t, name, data, **kw):
    ti = tarfile.TarInfo(name); ti.size = len(data)
    for k, v in kw.items(): setattr(ti, k, v)
    t.addfile(ti, io.BytesIO(data) if data else None)
def build(name, extra):
    files = {}
    for f in sorted(os.listdir(src)):
        if f.endswith(".ini"):
            files[f] = open(os.path.join(src, f), "rb").read().replace(b"version = 2026", b"version = 2099", 1)
    manifest = b"format = rocmcheck-profiles/1\nversion = 2099.05.01\nexpires = 2100.01.01\n"
    manifest += b"".join(b"sha256 = %s %s\n" % (f.encode(), hashlib.sha256(d).hexdigest().encode()) for f, d in files.items())
    with tarfile.open(os.path.join(out, name + ".tar.gz"), "w:gz", format=tarfile.USTAR_FORMAT) as t:
        add(t, "MANIFEST", manifest)
        add(t, "MANIFEST.sig", b"unsigned: the entry rules refuse these archives first\n")
        for f, d in files.items():
            add(t, f, d)
        extra(t)
build("dotdot", lambda t: add(t, "../evil.ini", b"x"))
build("absolute", lambda t: add(t, "/tmp/evil.ini", b"x"))
build("symlink", lambda t: add(t, "link.ini", b"", type=tarfile.SYMTYPE, linkname="/etc/passwd"))
build("hardlink", lambda t: add(t, "hard.ini", b"", type=tarfile.LNKTYPE, linkname="os.ini"))
build("device", lambda t: add(t, "dev.ini", b"", type=tarfile.CHRTYPE, devmajor=1, devminor=3))
build("subdir", lambda t: add(t, "sub/x.ini", b"x"))
PY
for h in dotdot absolute symlink hardlink device subdir; do "$release" --sign "www/$h.tar.gz" --key key.pem; done

rm -f port
"$PYTHON" "$TESTS_DIR/cli/profiles_server.py" "$T/www" "$T/port" srv.crt srv.key &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s port ] && break; sleep 0.05; done
[ -s port ] || { fail "the server did not start"; finish; }
base=https://127.0.0.1:$(cat port)
upd() { run "$1" profiles update --cacert "$T/ca.crt" --url "$2" "${@:3}"; }
installed() { (cd "$dest" 2>/dev/null && sha256sum -- *); }

# ---- a good update, and what later runs use
upd 1 "$base/ok/ancient.tar.gz"
grep -q "older than the one in use (2026" "$ERR" || fail "older than embedded: $(cat "$ERR")"
[ ! -e "$dest" ] || fail "a refused update installed something"
# without --cacert the test CA is not trusted
run 3 profiles update --url "$base/ok/good.tar.gz"
grep -qi "certificate" "$ERR" || fail "an untrusted server: $(cat "$ERR")"
upd 0 "$base/ok/good.tar.gz"
grep -q "installed database 2099.01.01 (signed by key [0-9a-f]\{16\}, expires 2100.01.01) in $dest" "$OUT" ||
	fail "good update: $(cat "$OUT" "$ERR")"
[ -s "$dest/MANIFEST" ] && [ -s "$dest/MANIFEST.sig" ] && [ -s "$dest/os.ini" ] || fail "nothing installed in $dest"
run 0 version
grep -q "^profiles: 2099.01.01 (installed in $dest, signed by key" "$OUT" || fail "version: $(cat "$OUT")"
run 0 --json version
validate_schema "$SOURCE_DIR/man/rocmcheck.version-1.schema.json" "$OUT" || fail "version --json: schema"
grep -q '"origin": "installed"' "$OUT" || fail "version --json: $(cat "$OUT")"
run any --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" doctor --level quick -v
grep -q "^profiles: 2099.01.01 (installed in" "$OUT" || fail "doctor -v: no profiles line"
run any --json --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" doctor --level quick
validate_schema "$SCHEMA" "$OUT" || fail "report: schema"
"$PYTHON" -c 'import json,sys; p=json.load(open(sys.argv[1]))["tool"]["profiles"]; sys.exit(not (p["origin"]=="installed" and p["version"]=="2099.01.01"))' "$OUT" ||
	fail "report: tool.profiles is not the installed one"
run any --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" bundle --level quick -o "$T/b.tar.gz"
tar xzf "$T/b.tar.gz" -O --wildcards '*report.json' | "$PYTHON" -c 'import json,sys; p=json.load(sys.stdin)["tool"]["profiles"]; sys.exit(p["origin"]!="installed")' ||
	fail "bundle: its report does not name the installed database"
run 0 --profiles "$SOURCE_DIR/profiles" version
grep -q "^profiles: 2026.*from $SOURCE_DIR/profiles" "$OUT" || fail "--profiles does not win: $(cat "$OUT")"
# the same archive again: nothing to do; a newer one over file://
upd 0 "$base/ok/good.tar.gz"
grep -q "is the one in use already" "$OUT" || fail "same again: $(cat "$OUT")"
run 0 --json profiles update --url "file://$T/www/newer.tar.gz"
validate_schema "$SOURCE_DIR/man/rocmcheck.profiles-update-1.schema.json" "$OUT" || fail "update --json: schema"
grep -q '"outcome": "installed"' "$OUT" && grep -q '"previous_version": "2099.01.01"' "$OUT" ||
	fail "file:// update: $(cat "$OUT" "$ERR")"
before=$(installed)

# ---- refusals: each leaves the installed copy as it was
refused() { # STATUS NAME WORDS [URL-PREFIX] [ARGS]
	upd "$1" "${4:-$base/ok}/$2.tar.gz" "${@:5}"
	grep -q -- "$3" "$ERR" || fail "$2: expected \"$3\": $(cat "$ERR")"
	[ "$(installed)" = "$before" ] || fail "$2: the installed copy changed"
}
refused 1 older "older than the one in use (2099.02.01): refused as a rollback"
refused 1 expired "expired on 2020.01.01"
refused 1 badsig "bad signature"
refused 1 unknownkey "which this rocmcheck does not trust"
refused 1 garbagesig "not an \"ed25519 KEYID SIGNATURE\" line"
refused 3 unsigned "unsigned.tar.gz.sig: .*404"
refused 1 truncated "truncated or corrupt archive"
# the bytes of a signed archive, cut by whoever signed them: the reader notices
refused 3 huge "larger than 8388608 bytes"
refused 1 dotdot "entry '../evil.ini': '..' in the path"
refused 1 absolute "entry '/tmp/evil.ini': absolute path"
refused 1 symlink "entry 'link.ini': a link"
refused 1 hardlink "entry 'hard.ini': a link"
refused 1 device "entry 'dev.ini': not a regular file"
refused 1 subdir "entry 'sub/x.ini': not MANIFEST, MANIFEST.sig or a NAME.ini"
refused 3 newer "newer.tar.gz:" "$base/partial"
start=$SECONDS
refused 3 newer "newer.tar.gz:" "$base/stall" --timeout 3
[ $((SECONDS - start)) -le 15 ] || fail "a stalled server held the update for $((SECONDS - start)) s"
refused 2 newer "plain http is refused" "http://127.0.0.1:$(cat port)/ok"
ls -a "$(dirname "$dest")" | grep -q '\.new-' && fail "a staging directory was left beside $dest"
run 0 version
grep -q "^profiles: 2099.02.01 (installed" "$OUT" || fail "after the refusals: $(cat "$OUT")"

# ---- a damaged installed copy is ignored with a warning, never used
cp -a "$dest" "$T/saved"
damage() { # WORDS: after the damage done by the caller
	run 0 version
	grep -q "^profiles: 2026.* (embedded)" "$OUT" || fail "damaged ($1): used: $(cat "$OUT")"
	grep -q "warning: the profile database installed in $dest is ignored: .*$1" "$ERR" ||
		fail "damaged ($1): no warning: $(cat "$ERR")"
	rm -rf "$dest" && cp -a "$T/saved" "$dest"
}
"$PYTHON" -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[len(b)//2]^=1; open(p,"wb").write(b)' "$dest/os.ini"
damage "os.ini does not match its SHA-256 in MANIFEST"
truncate -s 500 "$dest/gfx.ini"
damage "gfx.ini does not match its SHA-256"
rm "$dest/rocm-7.x.ini"
damage "rocm-7.x.ini: No such file"
sed -i 's/^expires = .*/expires = 2200.01.01/' "$dest/MANIFEST"
damage "bad signature: .*(MANIFEST.sig)"
rm "$dest/MANIFEST.sig"
damage "MANIFEST.sig: none beside it"
# a copy whose manifest claims no newer version than the embedded one is
# not used, so not verified either (no warning, no libcrypto)
sed -i 's/^version = .*/version = 2001.01.01/' "$dest/MANIFEST"
rm "$dest/MANIFEST.sig"
run 0 version
grep -q "^profiles: 2026.* (embedded)" "$OUT" && [ ! -s "$ERR" ] || fail "an older installed copy: $(cat "$OUT" "$ERR")"
rm -rf "$dest" && cp -a "$T/saved" "$dest"
ROCMCHECK_TEST_PROFILES_KEY= run 0 version
grep -q "ignored: signed by key" "$ERR" || fail "a key the binary does not hold: $(cat "$ERR")"
finish
