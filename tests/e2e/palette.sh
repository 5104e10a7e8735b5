# Client.TermColors (docs/dcat-dgrep.md, "Colours"): the palette the
# clients paint with, names translated to ANSI codes (DTail's D13 printed
# them verbatim). Serverless and through a real dserver the painted lines
# are byte-identical; the table and the CLIENT|/SERVER| messages follow
# their groups; a default palette paints as DTail; a bad name stops the
# client naming the key and its line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
need_bin dcat dmap
need_input "$M"
ESC=$(printf '\033')
in=$T/in.log
printf 'INFO|1002-071143|all well\nERROR|1002-071144|bad thing\n' >"$in"
chmod 755 "$T" && chmod 644 "$in"
cat >"$T/pal.json" <<'JSON'
{"Common": {"SSHConnectTimeoutMs": 30000},
 "Client": {"TermColors": {
   "Remote": {"HostnameFg": "Red", "TextBg": "BgYellow", "IdAttr": "AttrUnderline"},
   "Common": {"SeverityErrorBg": "Green"},
   "Client": {"ClientFg": "Magenta"},
   "MaprTable": {"DataFg": "Yellow", "HeaderSortKeyAttr": "None"}}}}
JSON

# The painted parts the palette asks for, and none of DTail's where it
# differs.
run sl dcat --cfg "$T/pal.json" --color always "$in"
expect_rc sl 0
expect_contains sl "$OUT" "${ESC}[31m${ESC}[44m${ESC}[1m"           # host: red on blue, bold
expect_contains sl "$OUT" "${ESC}[37m${ESC}[43mINFO|1002-071143"     # text on yellow
expect_contains sl "$OUT" "${ESC}[37m${ESC}[42m${ESC}[1mERROR|"      # ERROR on green
expect_contains sl "$OUT" "${ESC}[37m${ESC}[44m${ESC}[4min.log"      # the source underlined
run def dcat --cfg none --color always "$in"
expect_rc def 0
case $(cat "$OUT") in *"${ESC}[31m"*) fail "the default palette painted red" ;; esac
printf '{"Client": {"TermColors": {"Remote": {}}}}\n' >"$T/empty.json"
run def_cfg dcat --cfg "$T/empty.json" --color always "$in"
expect_bytes "an empty TermColors paints as DTail" "$OUT" "$T/def.out"

# Through a dserver: the server paints with the client's palette, byte
# for byte as serverless.
server_setup
server_start
flags=(--servers "$SERVER" --key "$SERVER_KEY" --trustAllHosts)
DTAIL_HOSTNAME_OVERRIDE=$(hostname) run srv dcat --cfg "$T/pal.json" --color always "${flags[@]}" --files "$in"
expect_rc srv 0
expect_bytes "through a dserver as serverless" "$OUT" "$T/sl.out"
run srv_def dcat --cfg none --color always "${flags[@]}" --files "$in"
expect_rc srv_def 0
case $(cat "$OUT") in *"${ESC}[31m"*) fail "a dserver painted red without the palette" ;; esac

# A message: the server's SERVER| line and the client's CLIENT| lines
# are painted with their groups when colours are on.
run msg dcat --cfg "$T/pal.json" --color always "${flags[@]}" --files "$T/missing.log"
expect_contains msg "$ERR" "${ESC}[30m${ESC}[46m${ESC}[2mSERVER"
run cmsg dcat --cfg "$T/pal.json" --color always --servers 127.0.0.1:1 --trustAllHosts --files "$in"
expect_contains cmsg "$ERR" "${ESC}[35m${ESC}[43m${ESC}[2mCLIENT"
server_stop

# dmap's table: data yellow, the order column not underlined.
run tab dmap --cfg "$T/pal.json" --color always --query 'from STATS select count($line),$hostname group by $hostname order by count($line)' "$M"
expect_rc tab 0
expect_contains tab "$OUT" "${ESC}[33m${ESC}[44m"
case $(cat "$OUT") in *"${ESC}[4m"*) fail "the sort key is underlined though HeaderSortKeyAttr is None" ;; esac

# A bad name: exit 2 naming the key and its line.
printf '{"Client": {"TermColors": {\n  "Remote": {"HostnameFg": "Purple"}}}}\n' >"$T/bad.json"
run bad dcat --cfg "$T/bad.json" --color always "$in"
expect_rc bad 2
expect_contains bad "$ERR" "$T/bad.json:2: Client.TermColors.Remote.HostnameFg: unknown colour \"Purple\""
expect_empty bad "$OUT"
finish
