# TestDCatColors: coloured REMOTE lines byte-exact, and the uncoloured ones.
# Usage: bash dcatcolors.sh always|nocolor|color_never|integration_env
. "$(dirname "$0")/lib.sh"
need_compat
mode=${1:?mode}
need_bin dcat
need_input "$COMPAT/dcatcolors.txt" "$COMPAT/dcatcolors.expected" \
           "$COMPAT/dcatcolors.server.expected"
# Run as DTail does: from the directory of the input, by relative name.
cp "$COMPAT/dcatcolors.txt" "$T/dcatcolors.txt"
cd "$T" || die "cd $T"

# Sanity of the expected file: it is the input as REMOTE lines, uncoloured.
awk '{print "REMOTE|integrationtest|100|" NR "|dcatcolors.txt|" $0}' dcatcolors.txt \
  | cmp -s - "$COMPAT/dcatcolors.server.expected" \
  || die "dcatcolors.server.expected is not the uncoloured REMOTE form of dcatcolors.txt"

case $mode in
  always)
    export DTAIL_HOSTNAME_OVERRIDE=integrationtest
    run colors dcat --logLevel error --cfg none --color always dcatcolors.txt
    expect_rc colors 0
    expect_bytes colors "$OUT" "$COMPAT/dcatcolors.expected"
    ;;
  nocolor)
    export DTAIL_HOSTNAME_OVERRIDE=integrationtest
    run nocolor dcat --logLevel error --cfg none --noColor dcatcolors.txt
    expect_rc nocolor 0
    expect_no_esc nocolor "$OUT"
    expect_bytes nocolor "$OUT" "$COMPAT/dcatcolors.server.expected"
    # --noColor wins over a forced colour? Not specified; only check that
    # --noColor alone with stdout a pipe is clean (done above).
    ;;
  color_never)
    export DTAIL_HOSTNAME_OVERRIDE=integrationtest
    run never dcat --logLevel error --cfg none --color never dcatcolors.txt
    expect_rc never 0
    expect_no_esc never "$OUT"
    expect_bytes never "$OUT" "$COMPAT/dcatcolors.server.expected"
    # NO_COLOR with --color auto: no colour.
    NO_COLOR=1 run no_color_env dcat --logLevel error --cfg none --color auto dcatcolors.txt
    expect_rc no_color_env 0
    expect_no_esc no_color_env "$OUT"
    expect_bytes no_color_env "$OUT" "$COMPAT/dcatcolors.server.expected"
    ;;
  integration_env)
    # DTAIL_INTEGRATION_TEST_RUN_MODE=yes alone sets the host name.
    export DTAIL_INTEGRATION_TEST_RUN_MODE=yes
    run integ dcat --logLevel error --cfg none --noColor dcatcolors.txt
    expect_rc integ 0
    expect_bytes integ "$OUT" "$COMPAT/dcatcolors.server.expected"
    run integ_color dcat --logLevel error --cfg none --color always dcatcolors.txt
    expect_rc integ_color 0
    expect_bytes integ_color "$OUT" "$COMPAT/dcatcolors.expected"
    ;;
  *) die "unknown mode $mode" ;;
esac
expect_empty "stderr" "$ERR"
finish
