#!/bin/bash
# The .deb and .rpm of ci/release (BUILD_DIR/release/dist):
#   - each holds exactly the files `cmake --install` of the portable build
#     installs (binary, manual pages, JSON schemas, anything else installed,
#     such as shell completion), under /usr, and owns no system directory;
#   - the .rpm requires glibc's libraries only, none above GLIBC_2.28, and
#     suggests libarchive and libcurl (rpm -qpl, -qpR, --suggests);
#   - the .deb depends on libc6 only and recommends libarchive and suggests
#     libcurl; as root, `dpkg -i` installs it, the installed `rocmcheck
#     version` and `man -w rocmcheck` work, and `dpkg -r` leaves nothing.
# Skipped (77) without ci/release's output, and when neither rpm nor root
# is there to check anything; each half says when it is left out.
. "$(dirname "$0")/lib.sh"

D=$BUILD_DIR/release/dist
deb=$(ls "$D"/rocmcheck_*_amd64.deb 2>/dev/null | head -n1)
rpmf=$(ls "$D"/rocmcheck-*.x86_64.rpm 2>/dev/null | head -n1)
if [ -z "$deb" ] || [ -z "$rpmf" ] || [ ! -d "$BUILD_DIR/release/portable" ]; then
	echo "no packages in $D: run ci/release" >&2
	exit 77
fi
checked=0

# The reference: what `cmake --install` of the portable build puts under /usr.
cmake --install "$BUILD_DIR/release/portable" --prefix "$T/inst" >/dev/null ||
	{ fail "cmake --install of the portable build"; finish; }
(cd "$T/inst" && find . ! -type d | sed 's|^\.|/usr|' | sort) >"$T/want"
grep -qx /usr/bin/rocmcheck "$T/want" || fail "cmake --install installs no /usr/bin/rocmcheck"
grep -qx /usr/share/man/man1/rocmcheck.1 "$T/want" || fail "cmake --install installs no rocmcheck.1"
grep -q '^/usr/share/rocmcheck/.*\.schema\.json$' "$T/want" || fail "cmake --install installs no schema"

# same_files WHAT LIST: LIST (one path a line) is the reference list
same_files() {
	ntests=$((ntests + 1))
	sort "$2" >"$2.sorted"
	cmp -s "$T/want" "$2.sorted" || fail "$1 files differ from cmake --install's: $(diff "$T/want" "$2.sorted" | head -n8)"
}

# ---- .rpm ----
if command -v rpm >/dev/null; then
	checked=1
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpmf" >"$T/rpm.modes" 2>"$ERR" ||
		{ fail "rpm -qp $rpmf: $(cat "$ERR")"; finish; }
	grep -v '^d' "$T/rpm.modes" | cut -d' ' -f2- >"$T/rpm.files"
	same_files rpm "$T/rpm.files"
	rpm -qpl "$rpmf" | sort >"$T/rpm.l"
	ntests=$((ntests + 1))
	# the only directory it owns is its own
	grep '^d' "$T/rpm.modes" | cut -d' ' -f2- | grep -vx /usr/share/rocmcheck &&
		fail "the rpm owns system directories"
	cmp -s "$T/rpm.l" <(cut -d' ' -f2- "$T/rpm.modes" | sort) || fail "rpm -qpl and the file modes disagree"

	ntests=$((ntests + 1))
	rpm -qpR "$rpmf" >"$T/rpm.req"
	echo "rpm -qpR: $(tr '\n' ' ' <"$T/rpm.req")"
	grep -q '^libc\.so\.6' "$T/rpm.req" || fail "the rpm does not require libc.so.6"
	while read -r req; do
		case $req in
			libc.so.6* | libm.so.6* | libdl.so.2* | libpthread.so.0* | "rpmlib("*) ;;
			*) fail "the rpm requires $req" ;;
		esac
		v=$(echo "$req" | sed -n 's/.*(GLIBC_\([0-9.]*\)).*/\1/p')
		case $v in
			"" | 2.[0-9] | 2.[0-9].* | 2.1[0-9] | 2.1[0-9].* | 2.2[0-8] | 2.2[0-8].*) ;;
			*) fail "the rpm requires $req" ;;
		esac
	done <"$T/rpm.req"
	ntests=$((ntests + 1))
	sugg=$(rpm -qp --suggests "$rpmf" | tr '\n' ' ')
	case $sugg in *libarchive*libcurl* | *libcurl*libarchive*) ;; *) fail "the rpm suggests: $sugg" ;; esac
else
	echo "no rpm command (ci/test-deps installs it): the .rpm is not checked" >&2
fi

# ---- .deb ----
ntests=$((ntests + 1))
[ "$(dpkg-deb -f "$deb" Depends)" = "libc6 (>= 2.28)" ] || fail "the deb depends on: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -f "$deb" Recommends | grep -q 'libarchive13' || fail "the deb does not recommend libarchive13"
dpkg-deb -f "$deb" Suggests | grep -q 'libcurl' || fail "the deb does not suggest libcurl"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' >"$T/deb.files"
same_files deb "$T/deb.files"

if [ "$(id -u)" -ne 0 ]; then
	echo "not root: dpkg -i is not tried" >&2
elif dpkg-query -W -f='${Status}' rocmcheck 2>/dev/null | grep -q 'ok installed'; then
	echo "a rocmcheck package is installed on this machine: dpkg -i is not tried" >&2
else
	checked=1
	trap 'dpkg -r rocmcheck >/dev/null 2>&1; rm -rf "$T"' EXIT
	ntests=$((ntests + 1))
	if ! dpkg -i "$deb" >"$OUT" 2>"$ERR"; then
		fail "dpkg -i $deb"
		last
		finish
	fi
	ntests=$((ntests + 1))
	/usr/bin/rocmcheck version >"$OUT" 2>"$ERR" || { fail "installed rocmcheck version: status $?"; last; }
	head -n1 "$OUT" | grep -Eq '^rocmcheck [0-9]+\.[0-9]+\.[0-9]+$' || fail "installed version: $(head -n1 "$OUT")"
	ntests=$((ntests + 1))
	/usr/bin/rocmcheck --sysroot "$(fixtures | head -n1)" doctor --level quick --json >"$OUT" 2>"$ERR"
	[ "$?" -le 1 ] || { fail "installed doctor"; last; }
	validate_json "$OUT" || fail "installed doctor: not a valid report"
	ntests=$((ntests + 1))
	page=$(MANPATH=/usr/share/man man -w rocmcheck 2>"$ERR")
	case $page in
		/usr/share/man/man1/rocmcheck.1*) ;;
		*) fail "man -w rocmcheck: '$page' $(cat "$ERR")" ;;
	esac
	page=$(MANPATH=/usr/share/man man -w 5 rocmcheck-profiles 2>"$ERR")
	case $page in
		/usr/share/man/man5/rocmcheck-profiles.5*) ;;
		*) fail "man -w 5 rocmcheck-profiles: '$page' $(cat "$ERR")" ;;
	esac
	page=$(MANPATH=/usr/share/man man -w 5 rocmcheck-policy 2>"$ERR")
	case $page in
		/usr/share/man/man5/rocmcheck-policy.5*) ;;
		*) fail "man -w 5 rocmcheck-policy: '$page' $(cat "$ERR")" ;;
	esac
	dpkg -L rocmcheck >"$T/listed"
	ntests=$((ntests + 1))
	dpkg -r rocmcheck >"$OUT" 2>"$ERR" || { fail "dpkg -r rocmcheck"; last; }
	trap 'rm -rf "$T"' EXIT
	status=$(dpkg-query -W -f='${Status}' rocmcheck 2>/dev/null)
	case $status in "" | *not-installed) ;; *) fail "after dpkg -r: status '$status'" ;; esac
	while read -r path; do
		# the directories every system has stay
		case $path in /. | /usr | /usr/bin | /usr/share | /usr/share/man | /usr/share/man/man[1-9]) continue ;; esac
		# and so do the directories other packages own (bash-completion's, zsh's)
		[ -d "$path" ] && dpkg -S "$path" >/dev/null 2>&1 && continue
		[ -e "$path" ] && fail "after dpkg -r, $path is left"
	done <"$T/listed"
fi

[ "$checked" = 1 ] || { echo "neither rpm nor root: nothing installed or queried" >&2; exit 77; }
finish
