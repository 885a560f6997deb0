#!/bin/bash
# The .deb and .rpm of ci/release (BUILD_DIR/release/dist):
#   - each holds exactly the files `cmake --install` of the portable build
#     installs (a PIE binary, gzipped manual pages, JSON schemas, shell
#     completion, the Slurm scripts in /usr/libexec/rocmcheck, copyright and
#     changelog), under /usr, and owns no system directory; the .rpm has the
#     zsh completion where Fedora's zsh looks (site-functions), the .deb
#     where Debian's does (vendor-completions);
#   - the .rpm requires glibc's libraries only, none above GLIBC_2.28,
#     suggests libarchive and libcurl (rpm -qpl, -qpR, --suggests), has a
#     description, a license field and a changelog, and rpmlint finds no
#     error and no warning;
#   - the .deb depends on libc6 only and recommends libarchive and suggests
#     libcurl; lintian finds no error and no warning (but the ones accepted
#     below, each with its reason); as root, `dpkg -i` installs it, the
#     installed `rocmcheck version`, `man -w rocmcheck`, the Slurm prolog,
#     and the bash and zsh completions (loaded the way bash-completion and
#     zsh's autoload find them) work, and `dpkg -r` leaves nothing.
# ci/test gives ci/release an absolute BUILD_DIR; the portable build must
# have embedded that build's kernels.
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
ntests=$((ntests + 1))
for f in /usr/bin/rocmcheck /usr/share/man/man1/rocmcheck.1.gz /usr/share/man/man5/rocmcheck-profiles.5.gz \
	/usr/share/doc/rocmcheck/copyright /usr/share/doc/rocmcheck/changelog.gz \
	/usr/share/bash-completion/completions/rocmcheck /usr/share/zsh/vendor-completions/_rocmcheck \
	/usr/libexec/rocmcheck/rocmcheck-healthcheck /usr/libexec/rocmcheck/rocmcheck-prolog; do
	grep -qx "$f" "$T/want" || fail "cmake --install installs no $f"
done
grep -q '^/usr/share/rocmcheck/.*\.schema\.json$' "$T/want" || fail "cmake --install installs no schema"
grep '^/usr/share/man/.*[^z]$' "$T/want" && fail "manual pages not compressed"
for f in "$T"/inst/share/man/man*/*.gz "$T/inst/share/doc/rocmcheck/changelog.gz"; do
	gzip -t "$f" || fail "$f: not gzip"
done
# the binary is a PIE (ELF type DYN); the Slurm scripts are programs
ntests=$((ntests + 1))
LC_ALL=C readelf -h "$T/inst/bin/rocmcheck" | grep -q 'Type:[[:space:]]*DYN' ||
	fail "the portable binary is not a PIE: $(LC_ALL=C readelf -h "$T/inst/bin/rocmcheck" | grep Type:)"
for f in "$T"/inst/libexec/rocmcheck/*; do
	[ -x "$f" ] && head -n1 "$f" | grep -q '^#!/bin/sh' || fail "$f: not an executable script"
done
# the changelog's latest entry is this version
ver=$(dpkg-deb -f "$deb" Version)
ntests=$((ntests + 1))
top=$(gzip -dc "$T/inst/share/doc/rocmcheck/changelog.gz" | head -n1)
[ "$top" = "rocmcheck ($ver) unstable; urgency=medium" ] || fail "changelog.gz begins '$top', the package is $ver"
# ci/release BUILD_DIR (ci/test gives an absolute one): the portable build
# compiled that build's kernels
ntests=$((ntests + 1))
kern=$(sed -n 's/^ROCMCHECK_KERNELS_EMBEDDED:[A-Z]*=//p' "$BUILD_DIR/release/portable/CMakeCache.txt")
[ "$kern" -ef "$BUILD_DIR/kernels/embedded_kernels.c" ] ||
	fail "the portable build embedded '$kern', not $BUILD_DIR/kernels/embedded_kernels.c"

# same_files WHAT WANT LIST: LIST (one path a line) is WANT, the reference list
same_files() {
	ntests=$((ntests + 1))
	sort "$3" >"$3.sorted"
	cmp -s "$2" "$3.sorted" || fail "$1 files differ from cmake --install's: $(diff "$2" "$3.sorted" | head -n8)"
}

# ---- .rpm ----
if command -v rpm >/dev/null; then
	checked=1
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpmf" >"$T/rpm.modes" 2>"$ERR" ||
		{ fail "rpm -qp $rpmf: $(cat "$ERR")"; finish; }
	grep -v '^d' "$T/rpm.modes" | cut -d' ' -f2- >"$T/rpm.files"
	# Fedora's and RHEL's zsh reads site-functions, not Debian's vendor-completions
	sed 's|^/usr/share/zsh/vendor-completions/|/usr/share/zsh/site-functions/|' "$T/want" | sort >"$T/rpm.want"
	same_files rpm "$T/rpm.want" "$T/rpm.files"
	grep -qx '.rwxr-xr-x /usr/libexec/rocmcheck/rocmcheck-healthcheck' "$T/rpm.modes" ||
		fail "the rpm's health check: $(grep healthcheck "$T/rpm.modes")"
	rpm -qpl "$rpmf" | sort >"$T/rpm.l"
	ntests=$((ntests + 1))
	# the only directories it owns are its own
	grep '^d' "$T/rpm.modes" | cut -d' ' -f2- |
		grep -vx -e /usr/share/rocmcheck -e /usr/share/doc/rocmcheck -e /usr/libexec/rocmcheck &&
		fail "the rpm owns system directories"
	cmp -s "$T/rpm.l" <(cut -d' ' -f2- "$T/rpm.modes" | sort) || fail "rpm -qpl and the file modes disagree"

	ntests=$((ntests + 1))
	rpm -qpR "$rpmf" >"$T/rpm.req"
	echo "rpm -qpR: $(tr '\n' ' ' <"$T/rpm.req")"
	grep -q '^libc\.so\.6' "$T/rpm.req" || fail "the rpm does not require libc.so.6"
	while read -r req; do
		case $req in
			# /bin/sh: the Slurm scripts'
			libc.so.6* | libm.so.6* | libdl.so.2* | libpthread.so.0* | "rpmlib("* | /bin/sh) ;;
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
	ntests=$((ntests + 1))
	rpm -qp --qf '%{LICENSE}\n%{DESCRIPTION}\n' "$rpmf" >"$T/rpm.info"
	rpm -qp --qf '%{PACKAGER}' "$rpmf" | grep -q '@localhost' && fail "the rpm's packager: $(rpm -qp --qf '%{PACKAGER}' "$rpmf")"
	grep -qix -e unspecified -e '' <(head -n1 "$T/rpm.info") && fail "the rpm's License: '$(head -n1 "$T/rpm.info")'"
	grep -qi "no package description" "$T/rpm.info" && fail "the rpm has CPack's placeholder description"
	grep -q "GPU compute stack" "$T/rpm.info" || fail "the rpm's description: $(tail -n+2 "$T/rpm.info")"
	rpm -qp --changelog "$rpmf" | grep -q -- "- $ver-1\$" || fail "the rpm's changelog has no entry for $ver-1"
	if command -v rpmlint >/dev/null; then
		# rpmlint 2.x: its report and a closing "N packages and 0 specfiles
		# checked; E errors, W warnings"
		ntests=$((ntests + 1))
		rpmlint -c "$SOURCE_DIR/contrib/packaging/rpmlint.toml" "$rpmf" >"$T/rpmlint" 2>&1
		echo "rpmlint: $(tail -n1 "$T/rpmlint")"
		grep -Eq ' 0 errors, 0 warnings' "$T/rpmlint" || fail "rpmlint: $(grep -E ': [EW]: ' "$T/rpmlint" | head -n20)"
	else
		echo "no rpmlint (ci/test-deps installs it): the .rpm is not linted" >&2
	fi
else
	echo "no rpm command (ci/test-deps installs it): the .rpm is not checked" >&2
fi

# ---- .deb ----
ntests=$((ntests + 1))
[ "$(dpkg-deb -f "$deb" Depends)" = "libc6 (>= 2.28)" ] || fail "the deb depends on: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -f "$deb" Recommends | grep -q 'libarchive13' || fail "the deb does not recommend libarchive13"
dpkg-deb -f "$deb" Suggests | grep -q 'libcurl' || fail "the deb does not suggest libcurl"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' >"$T/deb.files"
same_files deb "$T/want" "$T/deb.files"
dpkg-deb -f "$deb" Maintainer | grep -q '@localhost' && fail "the deb's maintainer: $(dpkg-deb -f "$deb" Maintainer)"

# lintian: every error and warning fails, but those accepted here, each
# with its reason (lintian's own overrides file would ship in the package).
accepted=(
	# rocmcheck reads /var/lib/dpkg/status itself, through its sysroot
	# layer: it diagnoses captured machines and bundles (--sysroot,
	# --replay), where no dpkg-query can run, and a live machine the same way
	uses-dpkg-database-directly
)
if command -v lintian >/dev/null; then
	ntests=$((ntests + 1))
	lintian --fail-on error,warning --suppress-tags "$(IFS=,; echo "${accepted[*]}")" "$deb" >"$T/lintian" 2>"$T/lintian.err"
	rc=$?
	echo "lintian: status $rc, $(grep -c '^[EW]: ' "$T/lintian") errors and warnings, $(grep -c '^[IXP]: ' "$T/lintian") other notes"
	[ "$rc" = 0 ] || fail "lintian: status $rc: $(grep -v '^[IXPN]: ' "$T/lintian" | head -n20) $(grep -v 'root privileges' "$T/lintian.err" | head -n5)"
else
	echo "no lintian (ci/test-deps installs it): the .deb is not linted" >&2
fi

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
	# the Slurm prolog as slurmd runs it (PATH gives the installed binary)
	ntests=$((ntests + 1))
	SLURM_JOB_ID=1 ROCMCHECK_ARGS="--sysroot $(fixtures | head -n1)" ROCMCHECK_DOCTOR_ARGS="--level quick" \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/libexec/rocmcheck/rocmcheck-prolog >"$OUT" 2>"$ERR" ||
		{ fail "the installed rocmcheck-prolog: status $?"; last; }
	# bash-completion's loader and zsh's autoload find the completions
	if [ -r /usr/share/bash-completion/bash_completion ]; then
		ntests=$((ntests + 1))
		got=$(bash -c '. /usr/share/bash-completion/bash_completion; __load_completion rocmcheck; complete -p rocmcheck' 2>&1)
		case $got in *"-F _rocmcheck rocmcheck"*) ;; *) fail "bash-completion does not load the installed completion: $got" ;; esac
	else
		echo "no bash-completion: its loading of the installed completion is not tried" >&2
	fi
	if command -v zsh >/dev/null; then
		ntests=$((ntests + 1))
		got=$(zsh -fc 'autoload -Uz +X _rocmcheck && whence -v _rocmcheck' 2>&1)
		case $got in *"/usr/share/zsh/vendor-completions/_rocmcheck"*) ;; *) fail "zsh does not find the installed completion: $got" ;; esac
	else
		echo "no zsh: its finding of the installed completion is not tried" >&2
	fi
	dpkg -L rocmcheck >"$T/listed"
	ntests=$((ntests + 1))
	dpkg -r rocmcheck >"$OUT" 2>"$ERR" || { fail "dpkg -r rocmcheck"; last; }
	trap 'rm -rf "$T"' EXIT
	status=$(dpkg-query -W -f='${Status}' rocmcheck 2>/dev/null)
	case $status in "" | *not-installed) ;; *) fail "after dpkg -r: status '$status'" ;; esac
	while read -r path; do
		# the directories every system has stay
		case $path in /. | /usr | /usr/bin | /usr/libexec | /usr/share | /usr/share/doc | /usr/share/man | /usr/share/man/man[1-9]) continue ;; esac
		# and so do the directories other packages own (bash-completion's, zsh's)
		[ -d "$path" ] && dpkg -S "$path" >/dev/null 2>&1 && continue
		[ -e "$path" ] && fail "after dpkg -r, $path is left"
	done <"$T/listed"
fi

[ "$checked" = 1 ] || { echo "neither rpm nor root: nothing installed or queried" >&2; exit 77; }
finish
