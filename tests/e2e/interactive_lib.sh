# Helpers of remote_query.sh and interactive.sh (source after lib.sh,
# server_lib.sh and fanout_lib.sh).
#
#   follow_servers N      N dservers on 127.0.0.1..N, each with an empty,
#                         writable data.log in its directory

follow_servers() {
  fanout_start_n "$1"
  local i
  for i in $(seq 0 $(($1 - 1))); do
    : >"$SRV/s$i/data.log"
    chmod 666 "$SRV/s$i/data.log"
  done
}
