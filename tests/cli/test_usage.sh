#!/bin/bash
# Usage errors: exit status 2, one error line and a hint on stderr, nothing on stdout.
. "$(dirname "$0")/lib.sh"

assert_err_lacks() {
	grep -q -- "$1" "$ERR" && { fail "stderr has '$1': $(cat "$ERR")"; last; }
	return 0
}

usage_error frobnicate
assert_err_has "unknown command 'frobnicate'"
usage_error docter
assert_err_has 'did you mean `doctor`'

# "did you mean" for options (each command's own and the global ones), check
# IDs, probe names and GPU names, as for commands; nothing when none is close
usage_error doctor --levle quick
assert_err_has "unknown option '--levle' (did you mean \`--level\`?)"
usage_error doctor --levle=quick
assert_err_has 'did you mean `--level`'
usage_error devices --jsn
assert_err_has 'did you mean `--json`'
usage_error --colr never doctor
assert_err_has 'did you mean `--color`'
usage_error plan --chek
assert_err_has 'did you mean `--check`'
usage_error devices --level quick
assert_err_lacks 'did you mean'
usage_error doctor --frobnicate
assert_err_lacks 'did you mean'
usage_error doctor --only perm.kdf
assert_err_has "no check matches 'perm.kdf' (did you mean \`perm.kfd\`? see"
usage_error doctor --skip prem
assert_err_has 'did you mean `perm`'
usage_error doctor --only zzzzzz
assert_err_lacks 'did you mean'
usage_error checks --explain device.presnt
assert_err_has 'did you mean `device.present`'
usage_error probe gemn
assert_err_has "unknown probe 'gemn' (did you mean \`gemm\`?"
usage_error plan --os ubuntu-22.04 --gpu rx-7900-xtz
assert_err_has 'did you mean `rx-7900-xtx`'
usage_error plan --os ubuntu-22.04 --gpu gx1100
assert_err_has 'did you mean `gfx1100`'
usage_error plan --os ubuntu-22.04 --gpu nothing-like-a-gpu
assert_err_lacks 'did you mean'
usage_error --frobnicate
assert_err_has "unknown option '--frobnicate'"
usage_error doctor --frobnicate
usage_error devices --frobnicate
usage_error checks --frobnicate
usage_error version --frobnicate
usage_error doctor stray-argument
usage_error devices stray-argument

# bad values
usage_error doctor --level fast
assert_err_has "unknown level 'fast'"
usage_error doctor --level=fast
usage_error --format yaml
assert_err_has "unknown format 'yaml'"
usage_error --format=xml doctor
usage_error doctor --format yaml
usage_error --color sometimes
usage_error doctor --fail-on error
usage_error doctor --timeout 0
usage_error doctor --timeout -5
usage_error doctor --timeout soon
usage_error doctor --gpu x
usage_error doctor --gpu 9999
usage_error doctor --only no.such.check
usage_error doctor --skip nosuchfamily
usage_error doctor --only ,
usage_error checks --explain no.such.check

# missing arguments
usage_error --sysroot
usage_error --profiles
usage_error --replay
usage_error --format
usage_error --color
usage_error doctor --level
usage_error doctor --only
usage_error doctor --skip
usage_error doctor --gpu
usage_error doctor --fail-on
usage_error doctor --timeout
usage_error checks --explain
usage_error --sysroot=
# quick never uses the network
usage_error doctor --level quick --online

# the option rules (rocmcheck(1), OPTION RULES)
# a separate value that starts with '-' is a missing value, unless a number
usage_error doctor --only -q
assert_err_has "option --only needs a value (got the option '-q')"
usage_error doctor --level --json
usage_error --sysroot -v doctor
usage_error doctor --timeout -5
assert_err_has 'whole number from 1 to 86400'
# an empty value is a usage error
usage_error doctor --level ''
usage_error doctor --gpu ''
usage_error --profiles ''
# bundled short options are the options one by one
usage_error -qv
assert_err_has '--verbose conflicts with --quiet'
usage_error doctor -q -v
usage_error doctor -v --quiet
usage_error -q doctor -v
usage_error --json --format text doctor
usage_error doctor -qx
assert_err_has "unknown option '-x' in '-qx'"
usage_error --json=x
assert_err_has 'takes no value'
run any -qq --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy"
case $STATUS in 0|1) ;; *) fail "-qq rejected with status $STATUS"; last ;; esac
run any --json --format json --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" devices
[ "$STATUS" = 0 ] || fail "--json --format json (one value twice) rejected"
run 0 -qh
assert_out_has '^usage: rocmcheck'
# "--" ends the options
usage_error devices -- --json
assert_err_has "unexpected argument '--json'"

# usage errors come before any work: a bad option with a bad sysroot is still 2
usage_error --sysroot /nonexistent/rocmcheck doctor --level fast

# and the same options with good values are accepted
run any doctor --level=quick --fail-on=warn --timeout=30 --only device.present --skip env. -q
case $STATUS in 0|1) ;; *) fail "good doctor options rejected with status $STATUS"; last ;; esac
run any --json=x 2>/dev/null
[ "$STATUS" = 2 ] || fail "--json=x accepted"
run 0 checks --explain=device.present

finish
