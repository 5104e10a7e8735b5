#!/usr/bin/env bash
# deps.sh: installs the Debian packages the build and the tests need, only
# those missing (apt-get update runs only when something is missing).
set -euo pipefail
packages=(
  cmake make gcc pkg-config lemon
  libpcre2-dev zlib1g-dev libzstd-dev libsqlite3-dev libssh-dev libedit-dev
  libjansson-dev libcmocka-dev libmd-dev libacl1-dev
  openssh-client acl         # e2e: ssh-keygen, ssh-agent, an independent ssh client; setfacl
  openssh-server             # e2e keytypes: our client against a real sshd
  clang libclang-rt-14-dev   # libFuzzer and the fuzz smoke run
  gzip zstd time procps      # e2e tests: compressed inputs, peak RSS, pkill
  sqlite3                    # e2e tests and benchmark: read SQLite exports
  nodejs                     # e2e tests: DuckDB, the oracle (tests/support/duckdb)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# DuckDB for the e2e tests' oracle (tests/support/duckdb/query.mjs), from
# the npm registry at the version its package-lock.json pins; a test whose
# oracle is missing skips, naming this step.
duck=$(cd "$(dirname "$0")/.." && pwd)/tests/support/duckdb
if [ ! -d "$duck/node_modules/@duckdb/node-api" ]; then
  if ! command -v npm >/dev/null; then   # Debian's nodejs comes without it
    SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm >/dev/null || true
  fi
  echo "deps: npm ci in $duck (@duckdb/node-api)"
  (cd "$duck" && npm ci --no-audit --no-fund --loglevel=error) ||
    echo "deps: npm ci in $duck failed: the DuckDB oracle tests will skip" >&2
fi
