#!/usr/bin/env bash
# Issue 15, defect 11: `culprit verdict` on a checkout with uncommitted changes. It was the raw
# "UNIQUE constraint failed" (the modified checkout took HEAD's label with another
# configuration); now the checkout is named by its changes and judged like any other.
source "$(dirname "$0")/common.sh"
cp "$DATA/bisect/git.toml" manifest.toml
# As few runs as a judgement takes: only the naming is checked here, not the verdict.
sed -i 's/^repetitions = 5/repetitions = 2/; s/^steps = 10/steps = 4/; s/^max_repetitions = 15/max_repetitions = 2/' manifest.toml
export GIT_AUTHOR_NAME=culprit GIT_AUTHOR_EMAIL=culprit@example.com
export GIT_COMMITTER_NAME=culprit GIT_COMMITTER_EMAIL=culprit@example.com
git init -q -b main repo
echo "compute_scale = 1.0" > repo/model.toml
echo "built-model.toml" > repo/.gitignore  # the build's output, as a real build's would be
git -C repo add model.toml .gitignore && git -C repo commit -q -m c0 && git -C repo tag good
echo "c1" > repo/history.txt
git -C repo add history.txt && git -C repo commit -q -m c1 && git -C repo tag bad
HEAD12=$(git -C repo rev-parse HEAD | cut -c1-12)

verdict() {  # verdict NAME: runs culprit verdict, accepting git bisect run's 0, 1 and 125
  local rc=0
  "$CULPRIT" verdict manifest.toml --db v.db --json > "$1.json" 2> "$1.log" || rc=$?
  [[ $rc == 0 || $rc == 1 || $rc == 125 ]] || fail "verdict $1 exited $rc: $(tail -5 "$1.log")"
  ! grep -q "UNIQUE constraint" "$1.log" || fail "verdict $1: $(grep UNIQUE "$1.log")"
}
verdict clean
expect_eq "clean candidate" "$(python3 -c 'import json; print(json.load(open("clean.json"))["candidate"])')" "checkout-$HEAD12"

echo "compute_scale = 1.3" > repo/model.toml  # not committed
verdict dirty
CANDIDATE=$(python3 -c 'import json; print(json.load(open("dirty.json"))["candidate"])')
[[ "$CANDIDATE" =~ ^checkout-$HEAD12\+dirty-[0-9a-f]{12}$ ]] || fail "dirty candidate: $CANDIDATE"
grep -q "uncommitted changes" dirty.log || fail "the dirty tree is not reported: $(cat dirty.log)"
# The same edit is the same configuration: judging it again reuses its runs.
verdict dirty_again
expect_eq "same name for the same edit" "$(python3 -c 'import json; print(json.load(open("dirty_again.json"))["candidate"])')" "$CANDIDATE"
expect_eq "integrity_check" "$(q v.db "PRAGMA integrity_check")" ok
echo "ok: a modified checkout is judged as $CANDIDATE"
