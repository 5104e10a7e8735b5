#!/usr/bin/env bash
# help2roff.sh BINARY SECTION OUT [SUMMARY]
#
# Writes the man page of BINARY from its own `--help` and `--version`, so
# the page cannot drift from the flags the binary accepts: the build runs
# this on every binary it links (cmake/packaging.cmake). SUMMARY is the
# NAME line used only when the help text has no description line of its own.
#
# The help layout it reads (base/flagparse.c, client/tools/cli.c):
#   Usage: NAME ARGS           -> SYNOPSIS
#   one or more text lines     -> NAME summary (first line) and DESCRIPTION
#   Flags...:  then "  -flag ARG   text" lines -> OPTIONS
#   Header:    then indented lines            -> a section of its own
#   other paragraphs           -> DESCRIPTION; "Environment: ..." -> ENVIRONMENT
set -u
set -o pipefail

if [ $# -lt 3 ]; then
  echo "usage: help2roff.sh BINARY SECTION OUT [SUMMARY]" >&2
  exit 2
fi
bin=$1 section=$2 out=$3 summary=${4:-}
name=$(basename "$bin")

help=$("$bin" --help) || { echo "help2roff.sh: $bin --help failed" >&2; exit 1; }
version=$("$bin" --version | awk 'NR == 1 { print $2 }') ||
  { echo "help2roff.sh: $bin --version failed" >&2; exit 1; }
[ -n "$help" ] || { echo "help2roff.sh: $bin --help printed nothing" >&2; exit 1; }

tmp="$out.tmp.$$"
printf '%s\n' "$help" | LC_ALL=C awk -v name="$name" -v section="$section" \
  -v version="$version" -v summary="$summary" '
# roff escapes: a backslash, a leading control character, and "-" as \- so
# flags render as ASCII hyphen-minus (and can be searched for) everywhere.
function esc(s) {
  gsub(/\\/, "\\e", s)
  gsub(/-/, "\\-", s)
  if (s ~ /^[.\047]/) s = "\\&" s
  return s
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function add(where, text) { sect[where] = sect[where] text "\n" }
function newsect(title) { order[++nsect] = title; cur = title }

# A flag line: "  --flag ARG   text", "  --flag   ARG  text" or "  -i   text".
function flag_line(line,   f, n, tag, arg, text, i, w, rest) {
  n = split(trim(line), f, /  +/)
  tag = f[1]; text = ""
  if (n >= 3) { arg = f[2]; i = 3 } else { arg = ""; i = 2 }
  for (; i <= n; i++) text = text (text == "" ? "" : "  ") f[i]
  # "--flag ARG text": a placeholder so long that one space separates it
  # from the text.
  if (split(tag, w, " ") > 1) {
    tag = w[1]; arg = w[2]; rest = ""
    for (i = 3; i in w; i++) rest = rest (rest == "" ? "" : " ") w[i]
    text = rest (rest != "" && text != "" ? " " : "") text
  }
  add(cur, ".TP")
  add(cur, "\\fB" esc(tag) "\\fR" (arg == "" ? "" : " \\fI" esc(arg) "\\fR"))
  add(cur, esc(text))
}

NR == 1 {
  usage = $0; sub(/^Usage: */, "", usage)
  synopsis = usage; sub(/^[^ ]+ */, "", synopsis)
  state = "desc"; cur = "DESCRIPTION"; next
}
/^$/ { if (verbatim) { add(cur, ".fi"); verbatim = 0 }
       state = "para"; flags = 0; next }
state == "desc" { if (first == "") first = $0; para_started["DESCRIPTION"] = 1
                  add("DESCRIPTION", esc($0)); next }
/^Flags.*:$/ {
  newsect("OPTIONS"); flags = 1
  note = $0; if (match(note, /\(.*\)/)) add(cur, esc(substr(note, RSTART + 1, RLENGTH - 2)) ".")
  next
}
flags && /^  +-/ { flag_line($0); next }
flags { add(cur, esc(trim($0))); next }
/^[A-Z][^:]*:$/ { t = toupper(substr($0, 1, length($0) - 1)); newsect(t); next }
/^ / { if (!verbatim) { add(cur, ".nf"); verbatim = 1 } add(cur, esc($0)); next }
# One-line forms of a section: "Environment: ...", "Exit status: ...".
/^(Environment|Exit status): / {
  t = toupper(substr($0, 1, index($0, ":") - 1)); text = substr($0, index($0, ":") + 2)
  if (!(t in sect)) newsect(t)
  add(t, esc(text)); next
}
{ if (cur == "OPTIONS" || cur == "") cur = "DESCRIPTION"
  add(cur, (para_started[cur]++ ? ".PP\n" : "") esc($0)) }

END {
  if (verbatim) add(cur, ".fi")
  if (first == "") first = summary
  if (first == "") first = "a DTail command"
  sub(/\.$/, "", first)
  printf ".\\\" Generated from %s --help by packaging/help2roff.sh; do not edit.\n", name
  printf ".TH %s %s \"\" \"DTail %s\" \"DTail\"\n", toupper(name), section, version
  print ".nh"
  print ".ad l"
  print ".SH NAME"
  # "Print ..." reads "print ..." after the dash; a name as "DTail" stays.
  if (substr(first, 2, 1) ~ /[a-z]/) first = tolower(substr(first, 1, 1)) substr(first, 2)
  print esc(name) " \\- " esc(first)
  print ".SH SYNOPSIS"
  print "\\fB" esc(name) "\\fR " esc(synopsis)
  if (sect["DESCRIPTION"] != "") { print ".SH DESCRIPTION"; printf "%s", sect["DESCRIPTION"] }
  for (i = 1; i <= nsect; i++) {
    t = order[i]
    if (t == "DESCRIPTION") continue
    print ".SH " (t ~ / / ? "\"" t "\"" : t)
    printf "%s", sect[t]
  }
  print ".SH SEE ALSO"
  print "dcat(1), dgrep(1), dmap(1), dtail(1), dtailhealth(1), dserver(8)"
}' > "$tmp" || { rm -f "$tmp"; echo "help2roff.sh: converting the help of $bin failed" >&2; exit 1; }
mv "$tmp" "$out"
