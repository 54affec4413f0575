#!/usr/bin/env bash
# A real 2-rank bisection of the 12 listed versions (v07 and later about 40 % slower) while
# another process keeps core 0 busy the whole time. The hog's load hits every version alike
# because the midpoints' runs are interleaved with fresh runs of the bracket's ends, the
# posterior removes drift over neighbouring runs, and the confirmation judges fresh runs of
# both versions made in the same blocks. Never a wrong culprit: either v07 is found, or the
# bisection ends inconclusive and says why (the measured CV, the remaining range).
source "$(dirname "$0")/common.sh"
MANIFEST="$DATA/bisect/hog.toml"  # listed.toml with max_repetitions 10: at most 70 runs
command -v taskset > /dev/null || fail "taskset (util-linux) is needed"

taskset -c 0 sh -c 'while :; do :; done' &
HOG=$!
trap 'kill "$HOG" 2> /dev/null || true' EXIT
sleep 0.5
kill -0 "$HOG" || fail "the CPU hog did not start"

set +e
"$CULPRIT" bisect "$MANIFEST" --db b.db --json > hog.json 2> hog.log
RC=$?
set -e
kill "$HOG"
trap - EXIT
STATUS=$(json hog.json 'd["status"]') || fail "no JSON report (exit $RC): $(tail -20 hog.log)"
# The hog was there: the runs' contention provenance saw other processes' CPU.
BUSY=$(q b.db "SELECT max(CAST(value AS REAL)) FROM provenance WHERE rank = -1 AND key = 'contention.other_cpu_share'")
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0.2 else 1)" "$BUSY" ||
  fail "contention.other_cpu_share peaked at $BUSY: the hog was not seen"
case "$STATUS" in
  found)
    expect_eq "exit status" "$RC" 0
    expect_eq "first bad" "$(json hog.json 'd["first_bad"]')" v07
    expect_eq "last good" "$(json hog.json 'd["last_good"]')" v06
    echo "ok: v07 found beside a CPU hog with $(json hog.json 'd["runs"]') runs (other CPU share up to $BUSY)"
    ;;
  inconclusive)
    # Allowed only with a reason a user can act on, and a range that still holds v07.
    expect_eq "exit status" "$RC" 4
    MESSAGE=$(json hog.json 'd["message"]')
    [[ -n "$MESSAGE" ]] || fail "inconclusive without a message"
    json hog.json 'd["range"][0] < "v07" <= d["range"][1] or sys.exit("range %s misses v07" % d["range"])'
    echo "ok (inconclusive, said why): $MESSAGE"
    ;;
  *)
    fail "status $STATUS (exit $RC) beside a CPU hog: $(json hog.json 'd["message"]')"
    ;;
esac
