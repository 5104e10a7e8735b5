# Colour selection: --color always|never|auto, --noColor, NO_COLOR, and
# whether stdout is a terminal (auto, the default, colours only a tty).
# Usage: bash color.sh pipe|tty
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dcat dgrep
need_input "$LINES_TXT" "$M"
in=$LINES_TXT

case $mode in
  pipe)
    run def dcat --cfg none "$in"
    expect_rc default 0
    expect_nonempty "default to a pipe" "$OUT"
    expect_no_esc "default (auto) to a pipe" "$OUT"
    run auto dcat --cfg none --color auto "$in"
    expect_no_esc "--color auto to a pipe" "$OUT"
    run always dcat --cfg none --color always "$in"
    expect_rc always 0
    expect_esc "--color always to a pipe" "$OUT"
    run always_eq dcat --cfg none --color=always "$in"
    expect_esc "--color=always to a pipe" "$OUT"
    NO_COLOR=1 run nc_auto dcat --cfg none --color auto "$in"
    expect_no_esc "NO_COLOR=1 --color auto" "$OUT"
    run grep_always dgrep --cfg none --color always --grep 1002-071947 "$M"
    expect_rc grep_always 0
    expect_esc "dgrep --color always" "$OUT"
    # --plain never colours.
    run plain_always dcat --plain --cfg none --color always "$in"
    expect_bytes "--plain --color always is raw" "$OUT" "$in"
    run bad dcat --cfg none --color sometimes "$in"
    expect_rc "--color sometimes" 2
    ;;
  tty)
    command -v script >/dev/null || skip "script(1) is not installed"
    script -qec 'test -t 1' /dev/null </dev/null >/dev/null 2>&1 || skip "no pseudo-terminal available"
    tty_run() { # tty_run LABEL ENV-ASSIGNMENTS ARGS...: dcat with stdout a pty
      local label=$1 envs=$2; shift 2
      local cmd="env $envs '$DTAIL_BIN/dcat'"
      local a
      for a in "$@"; do cmd="$cmd '$a'"; done
      RUN_TIMEOUT=20 run_sh "$label" "script -qec \"$cmd\" /dev/null"
    }
    tty_run t_default "" --cfg none "$in"
    expect_rc "tty default" 0
    expect_contains "tty default: output" "$OUT" "REMOTE"
    expect_esc "tty default (auto) colours" "$OUT"
    tty_run t_auto "" --cfg none --color auto "$in"
    expect_esc "tty --color auto colours" "$OUT"
    tty_run t_nocolor "" --cfg none --noColor "$in"
    expect_contains "tty --noColor: output" "$OUT" "REMOTE"
    expect_no_esc "tty --noColor" "$OUT"
    tty_run t_never "" --cfg none --color never "$in"
    expect_contains "tty --color never: output" "$OUT" "REMOTE"
    expect_no_esc "tty --color never" "$OUT"
    tty_run t_no_color_env "NO_COLOR=1" --cfg none "$in"
    expect_contains "tty NO_COLOR=1: output" "$OUT" "REMOTE"
    expect_no_esc "tty NO_COLOR=1" "$OUT"
    tty_run t_no_color_auto "NO_COLOR=1" --cfg none --color auto "$in"
    expect_no_esc "tty NO_COLOR=1 --color auto" "$OUT"
    tty_run t_plain "" --plain --cfg none "$in"
    expect_no_esc "tty --plain" "$OUT"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
