# Helpers of remote_query.sh and interactive.sh (source after lib.sh,
# server_lib.sh and fanout_lib.sh).
#
#   follow_servers N      N dservers on 127.0.0.1..N, each with an empty,
#                         writable data.log in its directory
#   wait_out STRING SECS  until $T/bg.out holds STRING (fixed string); on
#                         timeout a failure showing bg.out and bg.err

follow_servers() {
  fanout_start_n "$1"
  local i
  for i in $(seq 0 $(($1 - 1))); do
    : >"$SRV/s$i/data.log"
    chmod 666 "$SRV/s$i/data.log"
  done
}

wait_out() {
  local deadline=$((SECONDS + $2))
  while [ "$SECONDS" -lt "$deadline" ]; do
    grep -qF -- "$1" "$T/bg.out" && return 0
    sleep 0.02
  done
  fail "waited $2 s for '$1' in the output"
  sed 's/^/  | /' "$T/bg.out" "$T/bg.err" >&2
  return 1
}
