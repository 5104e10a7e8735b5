# Helpers of remote_query.sh and interactive.sh (source after lib.sh,
# server_lib.sh and fanout_lib.sh).
#
#   follow_servers N      N dservers on 127.0.0.1..N, each with a writable
#                         data.log in its directory, holding one line that no
#                         test's pattern or query matches
#   held_at_end PID FILE  PID has FILE open, every descriptor at its end
#   wait_follow_new I N [SECS]
#                         until server I has begun its Nth follow of its
#                         data.log and follows it from the end
#   table_sums FILE FROM ROW_ERE
#                         sums of the numeric columns of the table rows
#                         (lines matching ROW_ERE) after line FROM of FILE

# The line makes the file non-empty: at offset 0 a descriptor that was just
# opened cannot pass for one that went to the end (held_at_end), so a line
# appended in between is never skipped unseen.
follow_servers() {
  fanout_start_n "$1"
  local i
  for i in $(seq 0 $(($1 - 1))); do
    echo 'before the follow began' >"$SRV/s$i/data.log"
    chmod 666 "$SRV/s$i/data.log"
  done
}

# During a reload the old request may still hold the file: only when every
# descriptor is at the end is the new one known to be there.
held_at_end() {
  local pid=$1 want size fd pos n=0
  want=$(readlink -f "$2") || return 1
  size=$(stat -c %s "$2" 2>/dev/null) || return 1
  for fd in /proc/"$pid"/fd/*; do
    [ "$(readlink "$fd" 2>/dev/null)" = "$want" ] || continue
    pos=$(sed -n 's/^pos:[[:space:]]*//p' "/proc/$pid/fdinfo/${fd##*/}" 2>/dev/null)
    [ "$pos" = "$size" ] || return 1
    n=$((n + 1))
  done
  [ "$n" -gt 0 ]
}

following_new() {   # I N
  [ "$(grep -cF '|Start reading|' "${FANOUT_LOGS[$1]}")" -ge "$2" ] &&
    held_at_end "${FANOUT_PIDS[$1]}" "$SRV/s$1/data.log"
}

# "Start reading" is logged once the file is open, before the follower goes
# to its end: the Nth such line says the Nth request's descriptor exists,
# held_at_end that it is at the end. SECS (default 30) only guards a hang.
wait_follow_new() {
  poll "${3:-30}" following_new "$1" "$2" && return 0
  fail "waited ${3:-30} s for server $1 to follow data.log from its end (request $2)"
  tail -n 5 "${FANOUT_LOGS[$1]}" | sed 's/^/  | /' >&2
  ls -l "/proc/${FANOUT_PIDS[$1]}/fd" 2>&1 | sed 's/^/  | /' >&2
  return 1
}

table_sums() {
  awk -F'|' -v from="$2" -v re="$3" 'NR > from && $0 ~ re {
      for (i = 1; i <= NF; i++) {
        v = $i; gsub(/ /, "", v)
        if (v ~ /^-?[0-9]+(\.[0-9]+)?$/) { s[i] += v; num[i] = 1 }
      }
      if (NF > nf) nf = NF
    }
    END { for (i = 1; i <= nf; i++) if (num[i]) printf "%s%.10g", k++ ? " " : "", s[i]; print "" }' "$1"
}
