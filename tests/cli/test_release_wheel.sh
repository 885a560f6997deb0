#!/bin/bash
# The wheel of ci/release (BUILD_DIR/release/dist):
#   - tagged manylinux_2_28_x86_64, and auditwheel show (pinned,
#     BUILD_DIR/auditwheel from ci/test-deps) finds it consistent with
#     manylinux_2_28 or an older, more compatible tag;
#   - `pip install rocmcheck` from that folder, in a fresh venv, puts the
#     portable binary itself (no Python wrapper) on the venv's PATH, and
#     its manual page under the venv's share/man; `rocmcheck version` and a
#     quick doctor work; `pip uninstall` removes it.
# Skipped (77) without ci/release's output or without auditwheel.
. "$(dirname "$0")/lib.sh"

D=$BUILD_DIR/release/dist
AW=$BUILD_DIR/auditwheel
whl=$(ls "$D"/rocmcheck-*-py3-none-manylinux_2_28_x86_64.whl 2>/dev/null | head -n1)
if [ -z "$whl" ]; then
	echo "no manylinux_2_28 wheel in $D: run ci/release" >&2
	exit 77
fi
if [ ! -d "$AW/auditwheel" ]; then
	echo "no auditwheel in $AW: run ci/test-deps" >&2
	exit 77
fi

ntests=$((ntests + 1))
PYTHONPATH=$AW "$PYTHON" -m auditwheel show "$whl" >"$OUT" 2>"$ERR" || { fail "auditwheel show"; last; }
tag=$(tr '\n' ' ' <"$OUT" | sed -n 's/.*consistent with the following platform tag: *"\([^"]*\)".*/\1/p')
echo "auditwheel: consistent with $tag"
case $tag in
	manylinux_2_[5-9]_x86_64 | manylinux_2_1[0-9]_x86_64 | manylinux_2_2[0-8]_x86_64) ;;
	*) fail "auditwheel show: '$tag', not manylinux_2_28 or older"; last ;;
esac

ntests=$((ntests + 1))
"$PYTHON" -m venv "$T/venv" || { fail "python3 -m venv"; finish; }
"$T/venv/bin/python" -m pip install --quiet --no-index --find-links "$D" --disable-pip-version-check rocmcheck \
	>"$OUT" 2>"$ERR" || { fail "pip install rocmcheck"; last; finish; }
ntests=$((ntests + 1))
exe=$(PATH=$T/venv/bin:/usr/bin:/bin command -v rocmcheck)
[ "$exe" = "$T/venv/bin/rocmcheck" ] || fail "rocmcheck on the venv's PATH is '$exe'"
[ "$(head -c4 "$exe" | od -An -c | tr -d ' ')" = '177ELF' ] || fail "the installed rocmcheck is not the binary"
cmp -s "$exe" "$D/rocmcheck" || fail "the installed rocmcheck is not ci/release's binary"
[ -f "$T/venv/share/man/man1/rocmcheck.1" ] || fail "no share/man/man1/rocmcheck.1 in the venv"

ROCMCHECK=$exe
run 0 version
head -n1 "$OUT" | grep -Eq '^rocmcheck [0-9]+\.[0-9]+\.[0-9]+$' || fail "version: $(head -n1 "$OUT")"
# runs without Python: an empty environment, the venv not activated
ntests=$((ntests + 1))
env -i "$exe" --sysroot "$(fixtures | head -n1)" doctor --level quick --json >"$OUT" 2>"$ERR"
[ "$?" -le 1 ] || { fail "doctor from the wheel"; last; }
validate_json "$OUT" || fail "doctor from the wheel: not a valid report"

ntests=$((ntests + 1))
"$T/venv/bin/python" -m pip uninstall --quiet --yes rocmcheck >"$OUT" 2>"$ERR" || { fail "pip uninstall"; last; }
[ -e "$T/venv/bin/rocmcheck" ] && fail "pip uninstall left bin/rocmcheck"
[ -e "$T/venv/share/man/man1/rocmcheck.1" ] && fail "pip uninstall left the manual page"

finish
