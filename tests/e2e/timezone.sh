# timezone.sh: dmap --timezone (docs/log-formats.md, "Time"): $time and
# bucket() keys written as ISO 8601 in the asked zone, over two DST
# changes, against a Python oracle (zoneinfo); the default is the
# client's zone (its TZ), also through dservers running in another zone
# (the client's decides: it travels in the REQUEST), one and three of
# them byte for byte the serverless result; a bad zone is refused.
# Usage: bash timezone.sh oracle|servers|errors
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap
command -v python3 >/dev/null || skip "python3 is not installed"
[ -r /usr/share/zoneinfo/Europe/Berlin ] || skip "no tz database (/usr/share/zoneinfo)"

IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN"
# logfmt lines every 7 minutes around Berlin's and New York's DST changes,
# times written in three zones.
python3 - "$IN/t.log" <<'PY'
import datetime as dt, sys
UTC = dt.timezone.utc
out = open(sys.argv[1], "w")
for start in (dt.datetime(2024, 3, 30, 20, 0, tzinfo=UTC), dt.datetime(2024, 10, 26, 20, 0, tzinfo=UTC),
              dt.datetime(2024, 11, 2, 20, 0, tzinfo=UTC)):
    for i in range(200):
        t = start + dt.timedelta(minutes=7 * i, seconds=i % 60)
        z = [UTC, dt.timezone(dt.timedelta(hours=2)), dt.timezone(dt.timedelta(hours=-5, minutes=-30))][i % 3]
        s = t.astimezone(z).isoformat().replace("+00:00", "Z")
        out.write("time=%s level=%s n=%d\n" % (s, ["info", "warn"][i % 2], i))
PY
chmod 644 "$IN/t.log"

# oracle ZONE WIDTH: the rows of select bucket($time, WIDTH), count, max($time)
oracle() {
  python3 - "$IN/t.log" "$1" "$2" <<'PY'
import datetime as dt, sys, zoneinfo, re
path, zone, width = sys.argv[1], sys.argv[2], int(sys.argv[3])
UTC = dt.timezone.utc
z = UTC if zone == "UTC" else zoneinfo.ZoneInfo(zone) if not re.match(r"[+-]", zone) else \
    dt.timezone((1 if zone[0] == "+" else -1) * dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[-2:])))
def iso(t, off):
    s = t.strftime("%Y-%m-%dT%H:%M:%S")
    if zone == "UTC":
        return s + "Z"
    m = int(off.total_seconds()) // 60
    return s + "%s%02d:%02d" % ("-" if m < 0 else "+", abs(m) // 60, abs(m) % 60)
groups = {}
for line in open(path):
    v = re.search(r"time=(\S+)", line).group(1).replace("Z", "+00:00")
    t = dt.datetime.fromisoformat(v).astimezone(z)
    wall = t.replace(tzinfo=None)
    s = int((wall - dt.datetime(1970, 1, 1)).total_seconds())
    start = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=s - s % width)
    # the offset in force at the bucket's start (its wall clock; in the
    # hour a DST end repeats, the time's own occurrence: two buckets)
    off = start.replace(tzinfo=z, fold=t.fold).utcoffset()
    key = iso(start, off)
    g = groups.setdefault(key, [0, None, None])
    g[0] += 1
    me = iso(t.replace(tzinfo=None), t.utcoffset())
    g[1] = me if g[1] is None or t > g[2] else g[1]
    g[2] = t if g[2] is None or t > g[2] else g[2]
print('"bucket($time,%s)",count($line),max($time)' % {3600: "1h", 86400: "1d"}[width])
for k in sorted(groups):
    print("%s,%d,%s" % (k, groups[k][0], groups[k][1]))
PY
}

# dmap_csv LABEL WIDTH [FLAGS...]: the query's rows sorted (the key first).
q() { echo "select bucket(\$time, $1), count(\$line), last(\$time) group by bucket(\$time, $1) logformat logfmt"; }
case $mode in
oracle)
  for zone in Europe/Berlin America/New_York UTC +05:30 Australia/Lord_Howe; do
    for w in 1h:3600 1d:86400; do
      run "${zone//\//_}.${w%%:*}" dmap --cfg none --timezone "$zone" --output csv --query "$(q "${w%%:*}")" "$IN/t.log"
      expect_rc "$zone $w" 0
      oracle "$zone" "${w##*:}" >"$T/want"
      # last($time) of a bucket is its latest time: the file is in time order
      sed 's/^"bucket(\$time,\(1[hd]\))",count(\$line),last(\$time)$/"bucket($time,\1)",count($line),max($time)/' "$OUT" | sort >"$T/got"
      sort "$T/want" >"$T/want.s"
      expect_bytes "--timezone $zone, buckets of ${w%%:*}" "$T/got" "$T/want.s"
    done
  done
  # the default: the client's zone, as its TZ says
  TZ=Europe/Berlin run default dmap --cfg none --output csv --query "$(q 1h)" "$IN/t.log"
  cp "$OUT" "$T/default.csv"
  run given dmap --cfg none --timezone Europe/Berlin --output csv --query "$(q 1h)" "$IN/t.log"
  expect_bytes "TZ=Europe/Berlin is --timezone Europe/Berlin" "$T/default.csv" "$OUT"
  note "--timezone over 5 zones and two widths equals zoneinfo's; the default is TZ's zone"
  ;;
servers)
  . "$(dirname "$0")/server_lib.sh"
  . "$(dirname "$0")/fanout_lib.sh"
  need_bin dserver
  TZ=Asia/Tokyo fanout_start_n 4   # the servers' own zone is not the client's
  fanout_place "$IN" t.log
  THREE="${FANOUT_SERVERS[0]},${FANOUT_SERVERS[1]},${FANOUT_SERVERS[2]}"
  for zone in Europe/Berlin -03:30 UTC; do
    run local dmap --cfg none --timezone "$zone" --output csv --query "$(q 1h)" "$IN/t.log"
    cp "$OUT" "$T/local.csv"
    for s in "${FANOUT_SERVERS[3]}" "$THREE"; do
      run remote dmap "${SERVER_CLIENT_FLAGS[@]}" --logLevel error --timezone "$zone" --servers "$s" --output csv --query "$(q 1h)" --files t.log
      expect_rc "remote $zone" 0
      expect_bytes "--timezone $zone through $s vs serverless" "$OUT" "$T/local.csv"
    done
  done
  # without --timezone the client's TZ decides, not the servers'
  TZ=America/New_York run local dmap --cfg none --output csv --query "$(q 1d)" "$IN/t.log"
  cp "$OUT" "$T/local.csv"
  grep -q -- '-04:00,' "$T/local.csv" || fail "New York's offset not in: $(head -3 "$T/local.csv")"
  TZ=America/New_York run remote dmap "${SERVER_CLIENT_FLAGS[@]}" --logLevel error --servers "$THREE" --output csv --query "$(q 1d)" --files t.log
  expect_bytes "TZ=America/New_York through three dservers in Asia/Tokyo" "$OUT" "$T/local.csv"
  fanout_stop_all
  ;;
errors)
  for z in Mars/Olympus +25:00 ../../etc/passwd utc; do
    RUN_STDIN=/dev/zero run "bad_${z//\//_}" dmap --cfg none --timezone "$z" --query "$(q 1h)" "$IN/t.log"
    expect_rc "bad zone $z" 2
    expect_contains "bad zone $z" "$ERR" "$z"
  done
  expect_contains "bad zone message" "$ERR" "unknown time zone 'utc' (an IANA name such as Europe/Berlin, UTC, or an offset such as +02:00)"
  ;;
*) die "unknown mode $mode" ;;
esac
finish
