#!/usr/bin/env bash
# The libFuzzer target through libFuzzer itself (tests/libfuzzer/CMakeLists.txt names the cases):
#   correct FUZZER TARGET [ARGS...]   -runs=50 from a fixed seed: exit 0, no finding
#   finds   FUZZER TARGET DIR [ARGS...]   a planted bug: libFuzzer saves a crash file within
#                                     -runs=2000, the report names the case and the `metalsim run`
#                                     command, and the crash file replays to the same finding
#   replay  FUZZER TARGET DIR         corpus files given as arguments run once each: exit 0
#   refuses FUZZER TARGET             a known-bug spec without --known-bugs: exit 2, says why
#   repro   FUZZER TARGET DIR METALSIM   as finds, and the printed `metalsim run` command
#                                     reproduces the finding with the metalsim program
set -uo pipefail
mode=$1 fuzzer=$2 target=$3
shift 3

fail() { echo "FAILED: $*" >&2; exit 1; }

case $mode in
  correct)
    "$fuzzer" --target="$target" -runs=50 -seed=1 "$@" || fail "exit $? on a correct kernel"
    ;;
  finds | repro)
    dir=$1
    shift
    metalsim=""
    [ "$mode" = repro ] && { metalsim=$1; shift; }
    rm -rf "$dir" && mkdir -p "$dir"
    "$fuzzer" --target="$target" -runs=2000 -seed=1 -artifact_prefix="$dir/" "$@" >"$dir/log" 2>&1
    status=$?
    cat "$dir/log"
    [ "$status" -ne 0 ] || fail "no finding in 2000 runs"
    crash=$(ls "$dir"/crash-* 2>/dev/null | head -1)
    [ -n "$crash" ] || fail "no crash file in $dir"
    grep -qF "==metalsim== finding in $target" "$dir/log" || fail "no finding printed"
    repro=$(grep -m1 "==metalsim== reproduce: metalsim run " "$dir/log" |
            sed 's/^==metalsim== reproduce: //')
    [ -n "$repro" ] || fail "no reproduction command printed"
    # The crash file alone reproduces the finding: libFuzzer runs a file given as an argument.
    "$fuzzer" --target="$target" "$@" "$crash" >"$dir/replay.log" 2>&1
    [ $? -ne 0 ] || fail "the crash file did not reproduce"
    grep -qF "==metalsim== reproduce: $repro" "$dir/replay.log" || fail "the replay printed another case"
    if [ -n "$metalsim" ]; then
      eval "${repro/metalsim run/\"$metalsim\" run}" >"$dir/run.log" 2>&1
      cat "$dir/run.log"
      grep -Eq "^status +(FAIL|known bug reproduced)" "$dir/run.log" ||
        fail "metalsim run did not reproduce: $repro"
    fi
    ;;
  replay)
    dir=$1
    rm -rf "$dir" && mkdir -p "$dir"
    : >"$dir/empty"
    printf '\x00\x00\x03\xff\xff\x07' >"$dir/six"
    "$fuzzer" --target="$target" "$dir/empty" "$dir/six" >"$dir/log" 2>&1 || fail "exit $?"
    cat "$dir/log"
    [ "$(grep -c '^Executed' "$dir/log")" -eq 2 ] || fail "not every file ran"
    ;;
  refuses)
    "$fuzzer" --target="$target" -runs=1 >/dev/null 2>"${TMPDIR:-/tmp}/refuses.$$"
    status=$?
    cat "${TMPDIR:-/tmp}/refuses.$$"
    grep -q "known bug" "${TMPDIR:-/tmp}/refuses.$$" || fail "no reason given"
    rm -f "${TMPDIR:-/tmp}/refuses.$$"
    [ "$status" -eq 2 ] || fail "exit $status, not 2"
    ;;
  *) fail "unknown mode $mode" ;;
esac
