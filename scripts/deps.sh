#!/usr/bin/env bash
# deps.sh: installs the Debian packages the build and the tests need, only
# those missing (apt-get update runs only when something is missing).
set -euo pipefail
packages=(
  cmake make gcc pkg-config lemon
  libpcre2-dev zlib1g-dev libzstd-dev libsqlite3-dev libssh-dev libedit-dev
  libjansson-dev libcmocka-dev libmd-dev libacl1-dev
  libsystemd-dev             # sd-journal: journal targets (journal:<unit>)
  openssh-client acl         # e2e: ssh-keygen, ssh-agent, an independent ssh client; setfacl
  openssh-server             # e2e keytypes: our client against a real sshd
  clang libclang-rt-14-dev   # libFuzzer and the fuzz smoke run
  gzip zstd time procps      # e2e tests: compressed inputs, peak RSS, pkill
  sqlite3                    # e2e tests and benchmark: read SQLite exports
  python3                    # e2e tests: parse JSON and CSV output
  systemd-journal-remote     # e2e journal tests: write journal files (journalctl to compare)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# e2e tests: node and npm run DuckDB, the oracle (any node >= 18 will do).
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# DuckDB for the tests' oracle (tests/support/duckdb/query.mjs), pinned by
# its package-lock.json, into tests/support/duckdb/node_modules (ignored).
duck=tests/support/duckdb
if [ ! -d "$duck/node_modules/@duckdb/node-api" ]; then
  echo "deps: npm ci in $duck"
  (cd "$duck" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
