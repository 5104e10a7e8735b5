# package.sh CASE BUILD_DIR CPACK: the packaging (docs/packaging.md).
#   man         every flag a binary's --help lists is in its rendered man page,
#               and the page lists no flag --help does not
#   completion  the bash completion offers the flags and the query words
#   deb         cpack -G DEB: the package's files, conffile, scripts, depends
#   chroot      (opt-in: DTAIL_TEST_CHROOT=1, root, debootstrap, a mirror)
#               the .deb installs in a bare Debian 12 chroot with apt-get, and
#               the installed dserver starts as the unit starts it, as user
#               dtail with the shipped config, and answers dtailhealth
. "$(dirname "$0")/lib.sh"

CASE=${1:?case}
BUILD=${2:?build dir}
CPACK=${3:?cpack}
TOOLS="dcat dgrep dmap dtail dtailhealth dserver"

section_of() { [ "$1" = dserver ] && echo 8 || echo 1; }

# The flags of a --help: the first word of each "  -flag ..." line.
help_flags() {
  "$DTAIL_BIN/$1" --help | awk '/^  +--?[A-Za-z]/ { print $1 }' | sort -u
}

case_man() {
  local b page rendered f
  for b in $TOOLS; do
    page=$BUILD/man/$b.$(section_of "$b")
    [ -s "$page" ] || { fail "$b: no man page $page (build first)"; continue; }
    help_flags "$b" > "$T/$b.help"
    [ -s "$T/$b.help" ] || { fail "$b --help lists no flags"; continue; }
    rendered=$T/$b.man
    if command -v man >/dev/null && command -v groff >/dev/null; then
      run_sh "man_$b" "MANWIDTH=200 man -l '$page' | col -b"
      [ "$RC" -eq 0 ] || fail "man -l $page: status $RC: $(head -c 300 "$ERR")"
      cp "$OUT" "$rendered"
    else
      # Without man-db and groff, the roff source with \- as the hyphen.
      sed 's/\\-/-/g; s/\\f[BIR]//g' "$page" > "$rendered"
      E2E_RUNS=$((E2E_RUNS + 1))
    fi
    while read -r f; do
      grep -qE -- "(^|[^A-Za-z0-9-])$f([^A-Za-z0-9-]|\$)" "$rendered" ||
        fail "man $b does not show $f, which $b --help lists"
    done < "$T/$b.help"
    # The OPTIONS entries (.TP tags) are exactly the flags of --help.
    awk '/^\.TP$/ { getline; print }' "$page" | sed 's/\\fR.*//; s/\\fB//; s/\\-/-/g' | sort -u > "$T/$b.tags"
    diff "$T/$b.help" "$T/$b.tags" > "$T/$b.diff" ||
      fail "man $b's OPTIONS differ from $b --help (< help, > man): $(tr '\n' ' ' < "$T/$b.diff")"
  done
}

# complete WORDS...: COMPREPLY, one per line, for completing the last word
# as bash would: through the function `complete -p CMD` names.
complete_words() {
  cat > "$T/complete.sh" <<'EOF2'
source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
spec=$(complete -p "$1") || exit 3
fn=${spec#*-F }; fn=${fn%% *}
"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}"
EOF2
  run "complete_$E2E_RUNS" bash "$T/complete.sh" "$BUILD/completion/dtail" "$@"
  [ "$RC" -eq 0 ] || fail "completing '$*': status $RC: $(head -c 300 "$ERR")"
}

expect_completion() {
  local want=$1; shift
  complete_words "$@"
  [ "$(sort "$OUT" | tr '\n' '|')" = "$want" ] ||
    fail "completing '$*': got '$(tr '\n' '|' < "$OUT")', want '$want'"
}

case_completion() {
  [ -s "$BUILD/completion/dtail" ] || die "no completion script $BUILD/completion/dtail (build first)"
  expect_completion "from STATS select|" dmap --query "from STATS sel"
  expect_completion "from STATS select count|" dmap "from STATS select cou"
  expect_completion "select max(\$goroutines) group by \$hostname order|" dmap --query "select max(\$goroutines) group by \$hostname ord"
  expect_completion "debug|" dserver -logLevel de
  expect_completion "always|auto|" dgrep --color a
  expect_completion "csv|" dmap --output c
  expect_completion "json|" dtail --output j
  expect_completion "--query|--query-file|--quiet|" dmap --q
  local b
  for b in $TOOLS; do
    complete_words "$b" -
    sort "$OUT" > "$T/$b.compl"
    help_flags "$b" > "$T/$b.help"
    diff "$T/$b.help" "$T/$b.compl" > "$T/$b.diff" ||
      fail "'$b -<TAB>' differs from $b --help (< help, > completion): $(tr '\n' ' ' < "$T/$b.diff")"
  done
}

# build_deb DIR: cpack -G DEB into DIR; DEB is the package's path.
build_deb() {
  RUN_TIMEOUT=300 run "cpack" "$CPACK" -G DEB --config "$BUILD/CPackConfig.cmake" -B "$1"
  [ "$RC" -eq 0 ] || die "cpack -G DEB: status $RC: $(tail -c 600 "$OUT") $(tail -c 600 "$ERR")"
  local debs=("$1"/dtail_*_*.deb)
  [ "${#debs[@]}" -eq 1 ] && [ -f "${debs[0]}" ] || die "cpack wrote no single dtail_<version>_<arch>.deb in $1: $(ls "$1")"
  DEB=${debs[0]}
}

case_deb() {
  command -v dpkg-deb >/dev/null || skip "needs dpkg-deb (dpkg) to build and read a .deb"
  command -v dpkg-shlibdeps >/dev/null || skip "needs dpkg-shlibdeps (dpkg-dev) for the package's Depends"
  build_deb "$T/pkg"
  run contents dpkg-deb -c "$DEB"
  awk '{ print $6 }' "$OUT" | sed 's|^\./|/|' > "$T/files"
  local f
  for f in /usr/bin/{dcat,dgrep,dmap,dtail,dserver,dtailhealth} /etc/dserver/dtail.json \
           /lib/systemd/system/{dserver.service,dtail-keycache.service,dtail-keycache.timer} \
           /usr/libexec/dtail/dtail-update-keycache \
           /usr/share/man/man1/{dcat,dgrep,dmap,dtail,dtailhealth}.1.gz /usr/share/man/man8/dserver.8.gz \
           /usr/share/bash-completion/completions/{dcat,dgrep,dmap,dtail,dserver,dtailhealth}; do
    grep -qxF -- "$f" "$T/files" || fail "the package has no $f"
  done
  run conffiles dpkg-deb -I "$DEB" conffiles
  grep -qxF /etc/dserver/dtail.json "$OUT" || fail "conffiles does not list /etc/dserver/dtail.json: $(cat "$OUT")"
  run control dpkg-deb -f "$DEB" Package Depends
  for f in adduser libssh-4 libedit2 libsystemd0 libpcre2-8-0 libsqlite3-0 zlib1g libzstd1 libjansson4; do
    grep -q "[ ,]$f\b" "$OUT" || fail "Depends lacks $f: $(cat "$OUT")"
  done
  for f in postinst prerm postrm; do
    run "script_$f" dpkg-deb -I "$DEB" "$f"
    [ "$RC" -eq 0 ] || fail "the package has no $f"
  done
  grep -q 'adduser --system --group' "$T/script_postinst.out" || fail "postinst does not create the dtail system user"
  # The shipped config and unit as dserver and systemd read them.
  run extract dpkg-deb -x "$DEB" "$T/x"
  grep -q '^ExecStart=/usr/bin/dserver --cfg /etc/dserver/dtail.json$' "$T/x/lib/systemd/system/dserver.service" ||
    fail "dserver.service does not start /usr/bin/dserver with /etc/dserver/dtail.json"
  for f in User=dtail NoNewPrivileges=yes ProtectSystem=strict ProtectHome=read-only PrivateTmp=yes CapabilityBoundingSet=; do
    grep -qxF "$f" "$T/x/lib/systemd/system/dserver.service" || fail "dserver.service lacks $f"
  done
}

# ---------------------------------------------------------------- chroot

CHROOT_CACHE=${DTAIL_TEST_CHROOT_CACHE:-/tmp/dtail-test-chroot-bookworm-minbase.tar.gz}
MIRROR=${DTAIL_TEST_MIRROR:-http://deb.debian.org/debian}
ROOT=
DSERVER_PID=

# Unmounts /proc in the chroot before lib.sh's trap removes $T: rm -rf
# across a mounted /proc must never happen.
chroot_cleanup() {
  [ -n "$DSERVER_PID" ] && kill "$DSERVER_PID" 2>/dev/null
  if [ -n "$ROOT" ] && mountpoint -q "$ROOT/proc"; then
    umount "$ROOT/proc" || umount -l "$ROOT/proc" ||
      { echo "FAIL[$E2E_NAME]: cannot unmount $ROOT/proc; leaving $T" >&2; trap - EXIT; exit 1; }
  fi
  rm -rf "$T"
}

# A bare Debian 12 (minbase) in $ROOT, from the cached tarball when there
# is one, else debootstrapped and then cached for the next run.
make_root() {
  ROOT=$T/root
  IN_ROOT=(chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8)
  mkdir -p "$ROOT"
  if [ -s "$CHROOT_CACHE" ]; then
    tar -C "$ROOT" -xzf "$CHROOT_CACHE" || die "cannot unpack the cached chroot $CHROOT_CACHE (remove it to rebuild)"
    return 0
  fi
  echo "[$E2E_NAME] debootstrap --variant=minbase bookworm from $MIRROR (cached in $CHROOT_CACHE)"
  timeout 900 debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" > "$T/debootstrap.log" 2>&1 ||
    die "debootstrap failed: $(tail -c 800 "$T/debootstrap.log")"
  tar -C "$ROOT" -czf "$CHROOT_CACHE.tmp.$$" . && mv -f "$CHROOT_CACHE.tmp.$$" "$CHROOT_CACHE" ||
    { rm -f "$CHROOT_CACHE.tmp.$$"; die "cannot write the chroot cache $CHROOT_CACHE"; }
}


port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# healthy PORT: dtailhealth inside the chroot says OK within 120 s (the
# first start generates a 4096-bit RSA host key: seconds, but minutes on
# a loaded machine).
healthy() {
  local deadline=$((SECONDS + 120))
  while [ "$SECONDS" -lt "$deadline" ]; do
    RUN_TIMEOUT=10 run health chroot "$ROOT" /usr/bin/dtailhealth --server "127.0.0.1:$1"
    [ "$RC" -eq 0 ] && return 0
    kill -0 "$DSERVER_PID" 2>/dev/null || { echo "dserver exited" >> "$ERR"; return 1; }
    sleep 0.5
  done
  echo "no answer within 120 s" >> "$ERR"
  return 1
}

case_chroot() {
  [ "${DTAIL_TEST_CHROOT:-}" = 1 ] ||
    skip "opt-in: set DTAIL_TEST_CHROOT=1 to install the .deb in a debootstrapped Debian 12 chroot (root, debootstrap and a Debian mirror; minutes the first time, the base is cached in $CHROOT_CACHE)"
  [ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot, mount)"
  command -v debootstrap >/dev/null || skip "needs debootstrap (apt-get install debootstrap)"
  command -v dpkg-shlibdeps >/dev/null || skip "needs dpkg-shlibdeps (dpkg-dev) to build the .deb"
  command -v ssh-keygen >/dev/null || skip "needs ssh-keygen (openssh-client) for the key-cache check"
  command -v curl >/dev/null || skip "needs curl to check that $MIRROR answers"
  curl -fsS -m 20 -o /dev/null "$MIRROR/dists/bookworm/Release" ||
    skip "the Debian mirror $MIRROR does not answer (DTAIL_TEST_MIRROR sets another)"
  trap chroot_cleanup EXIT

  build_deb "$T/pkg"
  make_root
  mount -t proc proc "$ROOT/proc" || die "cannot mount /proc in the chroot"
  cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
  # debootstrap writes no /etc/hosts (the installer does); this is the
  # installer's. There localhost is ::1 first, and the clients do not fall
  # back to 127.0.0.1 when ::1 refuses (dserver listens on 0.0.0.0), so
  # the checks below name 127.0.0.1.
  [ -e "$ROOT/etc/hosts" ] ||
    printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' > "$ROOT/etc/hosts"
  cp "$DEB" "$ROOT/tmp/" || die "cannot copy $DEB into the chroot"
  local deb=${DEB##*/}

  RUN_TIMEOUT=300 run apt_update "${IN_ROOT[@]}" apt-get update
  [ "$RC" -eq 0 ] || die "apt-get update in the chroot: $(tail -c 600 "$OUT") $(tail -c 600 "$ERR")"
  RUN_TIMEOUT=600 run apt_install "${IN_ROOT[@]}" sh -c "cd /tmp && DEBIAN_FRONTEND=noninteractive apt-get install -y ./$deb"
  [ "$RC" -eq 0 ] || die "apt-get install ./$deb: status $RC: $(tail -c 1000 "$OUT") $(tail -c 600 "$ERR")"

  # The system user and its directories.
  run user "${IN_ROOT[@]}" getent passwd dtail
  [ "$RC" -eq 0 ] || die "the package did not create the user dtail"
  IFS=: read -r _ _ uid _ _ home shell < "$OUT"
  [ "$uid" -lt 1000 ] || fail "dtail is not a system user (uid $uid)"
  case $shell in */nologin|*/false) ;; *) fail "dtail has a login shell: $shell" ;; esac
  run dirs "${IN_ROOT[@]}" stat -c '%n %U:%G %a' /var/lib/dserver /var/lib/dserver/cache /var/log/dserver
  [ "$(cut -d' ' -f2- "$OUT" | tr '\n' '|')" = "dtail:dtail 750|dtail:dtail 700|dtail:dtail 750|" ] ||
    fail "state and log directories: $(tr '\n' '|' < "$OUT")"
  # Installing again (a reinstall runs postinst again) must not fail.
  RUN_TIMEOUT=300 run reinstall "${IN_ROOT[@]}" sh -c "cd /tmp && DEBIAN_FRONTEND=noninteractive apt-get install -y --reinstall ./$deb"
  [ "$RC" -eq 0 ] || fail "reinstalling ./$deb: $(tail -c 600 "$OUT") $(tail -c 300 "$ERR")"
  run conffile "${IN_ROOT[@]}" dpkg-query -W -f '${Conffiles}' dtail
  grep -q '/etc/dserver/dtail.json' "$OUT" || fail "dpkg does not know /etc/dserver/dtail.json as a conffile"

  # Start dserver as dserver.service does: its ExecStart, in its
  # WorkingDirectory, as its User; the shipped config unchanged. The
  # config's port 2222 unless another process holds it here.
  local unit=$ROOT/lib/systemd/system/dserver.service exec_start workdir user port=2222 extra=()
  exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
  workdir=$(sed -n 's/^WorkingDirectory=//p' "$unit")
  user=$(sed -n 's/^User=//p' "$unit")
  [ -n "$exec_start" ] && [ -n "$workdir" ] && [ -n "$user" ] || die "dserver.service lacks ExecStart, WorkingDirectory or User"
  port_free 2222 || { port=$(shuf -i 20000-60000 -n 1); extra=(--port "$port"); }
  # shellcheck disable=SC2086 # ExecStart's words, as systemd splits them
  chroot --userspec="$user:$user" "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin \
    sh -c 'cd "$1" && shift && exec "$@"' _ "$workdir" $exec_start "${extra[@]}" --shutdownAfter 120 \
    > "$T/dserver.out" 2>&1 &
  DSERVER_PID=$!
  healthy "$port" || die "the installed dserver did not answer dtailhealth on port $port: $(cat "$OUT" "$ERR") log: $(cat "$ROOT"/var/log/dserver/*.log "$T/dserver.out" 2>/dev/null | tail -c 1500)"
  grep -q '^OK' "$OUT" || fail "dtailhealth: $(cat "$OUT")"
  run owner "${IN_ROOT[@]}" stat -c '%U %a' /var/lib/dserver/cache/ssh_host_key
  [ "$(cat "$OUT")" = "dtail 600" ] || fail "host key: $(cat "$OUT")"
  grep -q "Running as\|Listening on" "$ROOT"/var/log/dserver/*.log || fail "dserver logged nothing to /var/log/dserver"

  # The key-cache refresh: alice's key reaches the cache, owned by dtail,
  # and logs her in; once her key file is gone, so is her cached copy.
  run useradd "${IN_ROOT[@]}" useradd -m -u 1500 -s /bin/sh alice
  ssh-keygen -q -t ed25519 -N '' -C alice -f "$T/alice" || die "ssh-keygen"
  install -d -m 0700 "$ROOT/home/alice/.ssh"
  install -m 0600 "$T/alice.pub" "$ROOT/home/alice/.ssh/authorized_keys"
  chroot "$ROOT" chown -R alice:alice /home/alice/.ssh
  # A key file that is a symlink to a file only root reads copies nothing.
  run useradd2 "${IN_ROOT[@]}" useradd -m -u 1501 -s /bin/sh mallory
  install -d -m 0700 "$ROOT/home/mallory/.ssh"
  ln -s /etc/shadow "$ROOT/home/mallory/.ssh/authorized_keys"
  chroot "$ROOT" chown -h -R mallory:mallory /home/mallory/.ssh
  run keycache "${IN_ROOT[@]}" /usr/libexec/dtail/dtail-update-keycache
  [ "$RC" -eq 1 ] || fail "dtail-update-keycache: status $RC, want 1 (mallory's file is unreadable to her): $(cat "$ERR")"
  run cached "${IN_ROOT[@]}" stat -c '%U %a' /var/lib/dserver/cache/alice.authorized_keys
  [ "$(cat "$OUT")" = "dtail 600" ] || fail "alice's cached keys: $(cat "$OUT" "$ERR")"
  [ -e "$ROOT/var/lib/dserver/cache/mallory.authorized_keys" ] && fail "mallory's symlink to /etc/shadow was copied into the cache"
  cp "$T/alice" "$ROOT/tmp/alice.key"
  run dgrep "${IN_ROOT[@]}" /usr/bin/dgrep --plain --servers "127.0.0.1:$port" --user alice --key /tmp/alice.key \
    --trustAllHosts --files /var/log/dpkg.log --grep 'install dtail'
  grep -q 'install dtail' "$OUT" || fail "alice could not read /var/log/dpkg.log through dserver: $(cat "$OUT" "$ERR")"
  rm -f "$ROOT/home/alice/.ssh/authorized_keys"
  run keycache2 "${IN_ROOT[@]}" /usr/libexec/dtail/dtail-update-keycache
  [ -e "$ROOT/var/lib/dserver/cache/alice.authorized_keys" ] && fail "alice's stale cached keys were not removed"
  [ -e "$ROOT/var/lib/dserver/cache/ssh_host_key" ] || fail "the key-cache refresh removed the host key"

  kill "$DSERVER_PID" 2>/dev/null
  wait "$DSERVER_PID"
  local rc=$?
  DSERVER_PID=
  [ "$rc" -eq 0 ] || fail "dserver exited $rc after SIGTERM: $(tail -c 600 "$T/dserver.out")"

  RUN_TIMEOUT=300 run purge "${IN_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y dtail
  [ "$RC" -eq 0 ] || fail "apt-get purge dtail: $(tail -c 600 "$OUT") $(tail -c 300 "$ERR")"
  [ -e "$ROOT/var/lib/dserver" ] && fail "purge left /var/lib/dserver"
  [ -e "$ROOT/etc/dserver/dtail.json" ] && fail "purge left /etc/dserver/dtail.json"
}

case $CASE in
  man) case_man ;;
  completion) case_completion ;;
  deb) case_deb ;;
  chroot) case_chroot ;;
  *) die "unknown case $CASE" ;;
esac
finish
