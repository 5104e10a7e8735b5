# --agentKeyIndex N (reference 1.2, 5.4): of a real ssh-agent's keys the
# client offers only the N-th (from 0), in the agent's place of the key
# order. The agent holds two keys, of which the dserver authorizes the
# second; the client's home has no key files, so only the agent can log
# it in.
#   index 1      logs in, and the server never sees the other key
#   index 0      the unauthorized key alone: refused
#   default      every agent key (DTail's -1): logs in
#   key_first    --key with a refused key, then agent key 1: logs in
#   refusals     an index past the agent's keys, no agent at all, a
#                value that is no index
# Usage: bash agent_key.sh agent
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
need_bin dcat
command -v ssh-agent >/dev/null && command -v ssh-add >/dev/null || skip "ssh-agent is not installed"

AGENT_PID=
trap '[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null; server_cleanup' EXIT

server_setup
server_start
IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN"
cp "$LINES_TXT" "$IN/lines.txt" && chmod 644 "$IN/lines.txt" || die "cp lines.txt"

ssh-keygen -q -t ed25519 -N '' -C not-authorized -f "$T/other" || die "ssh-keygen"
eval "$(ssh-agent -s -a "$T/agent.sock")" >/dev/null || die "ssh-agent did not start"
AGENT_PID=$SSH_AGENT_PID
ssh-add -q "$T/other" 2>/dev/null && ssh-add -q "$SERVER_KEY" 2>/dev/null || die "ssh-add failed"
# Into a file first: under pipefail, head closing the pipe early would
# fail ssh-add with SIGPIPE.
ssh-add -l >"$T/agent.list" || die "ssh-add -l failed"
[ "$(wc -l <"$T/agent.list")" -eq 2 ] || die "the agent does not hold the two keys"
head -n 1 "$T/agent.list" | grep -q not-authorized || die "the agent lists the keys in another order"
ls "$HOME/.ssh" | grep -q '^id_' && die "the test's home has key files"

# client LABEL ARGS...: dcat of the input through the server, no --key.
client() {
  local label=$1
  shift
  run "$label" dcat --servers "$SERVER" --trustAllHosts --noColor --plain "$@" --files "$IN/lines.txt"
}
refusals_in_log() { grep -c 'public key of user not authorized' "$SERVER_LOG"; }

before=$(refusals_in_log)
client index1 --agentKeyIndex 1
expect_rc index1 0
expect_bytes index1 "$OUT" "$LINES_TXT"
client index1_again --agentKeyIndex=1
expect_rc index1_again 0
sleep 0.3   # the server's log is written every 100 ms
[ "$(refusals_in_log)" -eq "$before" ] ||
  fail "index 1: the server was offered the agent's other key ($(refusals_in_log) refusals, had $before)"

client index0 --agentKeyIndex 0
expect_rc index0 1
expect_contains index0 "$ERR" "authentication failed"
expect_contains index0 "$ERR" "agentKeyIndex"
expect_empty "index0 stdout" "$OUT"
# The refusal is in the server's log: so the check of index 1 above
# would have seen the other key.
poll 10 eval '[ "$(refusals_in_log)" -gt "$before" ]' ||
  fail "index 0: the server logged no refused key"

client all
expect_rc all 0
expect_bytes all "$OUT" "$LINES_TXT"
client minus_one --agentKeyIndex -1
expect_rc minus_one 0

client key_first --key "$T/other" --agentKeyIndex 1
expect_rc key_first 0
expect_bytes key_first "$OUT" "$LINES_TXT"
client key_only --key "$T/other"
expect_rc key_only 1

client past_end --agentKeyIndex 2
expect_rc past_end 1   # a failed connection, as any (docs/fanout.md)
expect_contains past_end "$ERR" "--agentKeyIndex 2: the ssh-agent holds 2 keys (index 0 to 1)"

saved_sock=$SSH_AUTH_SOCK
unset SSH_AUTH_SOCK
client no_agent --agentKeyIndex 0
export SSH_AUTH_SOCK=$saved_sock
expect_rc no_agent 1
expect_contains no_agent "$ERR" "--agentKeyIndex 0: no ssh-agent (SSH_AUTH_SOCK is not set)"

# Values that are no key's index are usage errors, serverless too.
for v in first -2 1024; do
  run "bad$v" dcat --agentKeyIndex "$v" --plain "$LINES_TXT"
  expect_rc "bad$v" 2
  expect_contains "bad$v" "$ERR" "invalid value \"$v\" for flag -agentKeyIndex"
done

server_alive
server_stop
finish
