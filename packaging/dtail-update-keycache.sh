#!/bin/bash
# dtail-update-keycache: copies every login user's ~/.ssh/authorized_keys
# into dserver's key cache as CACHE/USER.authorized_keys (mode 0600, owned
# by the dserver user) and removes the copies of users who no longer have
# one, so dserver authenticates from its cache without reading home
# directories. dtail-keycache.timer runs it every 30 minutes.
#
# Environment (each read, none required):
#   DTAIL_KEYCACHE_DIR    the cache (default /var/lib/dserver/cache, the
#                         CacheDir of /etc/dserver/dtail.json)
#   DTAIL_KEYCACHE_OWNER  the user dserver runs as (default dtail)
# Exit status: 0 all copied, 1 a copy failed (the others are still made),
# 2 usage (not root, no cache directory, unknown owner).
set -u
set -o pipefail

prog=dtail-update-keycache
cache=${DTAIL_KEYCACHE_DIR:-/var/lib/dserver/cache}
owner=${DTAIL_KEYCACHE_OWNER:-dtail}
# dserver reads at most 16 MiB of a key file; a larger one is not copied.
max_bytes=$((16 * 1024 * 1024))

warn() { echo "$prog: $*" >&2; }

if [ $# -ne 0 ]; then
  echo "usage: $prog (no arguments; see DTAIL_KEYCACHE_DIR, DTAIL_KEYCACHE_OWNER)" >&2
  exit 2
fi
[ "$(id -u)" = 0 ] || { warn "must run as root (it reads every user's key file as that user)"; exit 2; }
[ -d "$cache" ] || { warn "cache directory $cache does not exist"; exit 2; }
id -u "$owner" >/dev/null 2>&1 || { warn "user $owner (DTAIL_KEYCACHE_OWNER) does not exist"; exit 2; }

uid_min=$(awk '$1 == "UID_MIN" { print $2 }' /etc/login.defs 2>/dev/null)
uid_min=${uid_min:-1000}

# Reads FILE with the rights of UID:GID only, so a key file that is a
# symlink to a file its owner cannot read (/etc/shadow) copies nothing.
read_as() {
  setpriv --reuid="$1" --regid="$2" --clear-groups -- head -c $((max_bytes + 1)) -- "$3"
}

# Replaces CACHE/USER.authorized_keys with the keys of USER (uid, gid,
# home), unless they are the same already.
copy_keys() {
  local user=$1 uid=$2 gid=$3 src=$4 dst="$cache/$1.authorized_keys" tmp
  tmp=$(mktemp "$cache/.$user.authorized_keys.XXXXXX") || { warn "$user: cannot create a file in $cache"; return 1; }
  if ! read_as "$uid" "$gid" "$src" > "$tmp"; then
    warn "$user: cannot read $src as $user; its cached keys are removed"
    rm -f -- "$tmp" "$dst"
    return 1
  fi
  if [ "$(stat -c %s -- "$tmp")" -gt "$max_bytes" ]; then
    warn "$user: $src is larger than 16 MiB; its cached keys are removed"
    rm -f -- "$tmp" "$dst"
    return 1
  fi
  if cmp -s -- "$tmp" "$dst" && [ "$(stat -c %U:%a -- "$dst")" = "$owner:600" ]; then
    rm -f -- "$tmp"
    return 0
  fi
  chmod 0600 -- "$tmp" && chown "$owner:" -- "$tmp" && mv -f -- "$tmp" "$dst" ||
    { warn "$user: cannot install $dst"; rm -f -- "$tmp"; return 1; }
}

rc=0
declare -A keep=()
while IFS=: read -r user _ uid gid _ home _; do
  # Login users only, with names dserver accepts (no leading dot, no slash).
  [[ $uid =~ ^[0-9]+$ ]] && [ "$uid" -ge "$uid_min" ] && [ "$uid" -ne 65534 ] || continue
  [[ $user =~ ^[A-Za-z0-9_][A-Za-z0-9_.@-]*$ ]] || continue
  src="$home/.ssh/authorized_keys"
  [ -e "$src" ] || [ -L "$src" ] || continue
  keep[$user]=1
  copy_keys "$user" "$uid" "$gid" "$src" || rc=1
done < <(getent passwd)

for f in "$cache"/*.authorized_keys; do
  [ -f "$f" ] || continue
  user=$(basename -- "$f" .authorized_keys)
  [ -n "${keep[$user]:-}" ] && continue
  rm -f -- "$f" || { warn "cannot remove the stale $f"; rc=1; }
done
exit "$rc"
