#!/bin/bash
# --only and --skip select checks by ID or prefix.
. "$(dirname "$0")/lib.sh"

ids() { json_get "$OUT" '" ".join(sorted(set(c["id"] for c in d["checks"])))'; }

run any doctor --level quick --json --only device.present
[ "$(ids)" = device.present ] || fail "--only device.present ran: $(ids)"
run any doctor --level quick --json --only env.
for id in $(ids); do case $id in env.*) ;; *) fail "--only env. ran $id" ;; esac; done
[ -n "$(ids)" ] || fail "--only env. ran nothing"
run any doctor --level quick --json --only env
for id in $(ids); do case $id in env.*) ;; *) fail "--only env ran $id" ;; esac; done
run any doctor --level quick --json --only device.present,env.launch_blocking
[ "$(ids)" = "device.present env.launch_blocking" ] || fail "--only with a list ran: $(ids)"
run any doctor --level quick --json --only device.present --only env.launch_blocking
[ "$(ids)" = "device.present env.launch_blocking" ] || fail "repeated --only ran: $(ids)"
run any doctor --level quick --json --skip device.
for id in $(ids); do case $id in device.*) fail "--skip device. ran $id" ;; esac; done
run any doctor --level quick --json --skip device.present --only device.
case " $(ids) " in *" device.present "*) fail "--skip device.present with --only device. ran it" ;; esac

# --only a passing check: exit status 0 even on a machine without a GPU
run 0 doctor --level quick --only env.launch_blocking

finish
