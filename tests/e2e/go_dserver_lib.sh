# shellcheck shell=bash
# go_dserver_lib.sh: the Go DTail dserver (../shared/peers) on loopback,
# for the interop tests (dt41.sh) and benchmarks/dt41.sh. Sourced.

# go_dserver_launch DIR PEERS LIFETIME_S: PEERS/dserver on a free loopback
# port with --cfg none, run in DIR (its cache/ and log/ there), as nobody
# when we are root (Go's dserver refuses to run as root), gone after
# LIFETIME_S. Sets GO_PID and GO_PORT; returns 1 when it does not listen
# within 30 s (DIR/dserver.out says why). Knobs: GO_DSERVER_CFG (a config
# file instead of none), GO_DSERVER_PATH (its PATH: where it finds, or
# does not find, journalctl).
go_dserver_launch() {
  local dir=$1 peers=$2 life=$3 port k asuser=() envp=()
  [ -n "${GO_DSERVER_PATH:-}" ] && envp=(env "PATH=$GO_DSERVER_PATH")
  for k in $(seq 1 50); do
    port=$((20000 + RANDOM % 20000))
    ss -ltn | grep -q "127.0.0.1:$port " || break
  done
  [ "$(id -u)" -eq 0 ] && asuser=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
  (cd "$dir" && exec timeout "$((life + 10))" "${asuser[@]}" "${envp[@]}" "$peers/dserver" \
    --cfg "${GO_DSERVER_CFG:-none}" \
    --bindAddress 127.0.0.1 --port "$port" --logDir "$dir/log" --shutdownAfter "$life") \
    >"$dir/dserver.out" 2>&1 &
  GO_PID=$!
  GO_PORT=$port
  for k in $(seq 1 300); do
    ss -ltn | grep -q "127.0.0.1:$port " && return 0
    sleep 0.1
  done
  return 1
}
