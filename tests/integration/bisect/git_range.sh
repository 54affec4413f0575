#!/usr/bin/env bash
# A generated repository of 12 commits: c08 raises compute_scale to 1.6 (the culprit), c05
# lacks model.toml so its build fails (skipped, reported). Then `culprit verdict` on checkouts:
# the bad commit is bad (1), the broken one is skipped (125).
source "$(dirname "$0")/common.sh"
cp "$DATA/bisect/git.toml" manifest.toml
export GIT_AUTHOR_NAME=culprit GIT_AUTHOR_EMAIL=culprit@example.com
export GIT_COMMITTER_NAME=culprit GIT_COMMITTER_EMAIL=culprit@example.com
git init -q -b main repo
commit() {  # commit NAME SCALE|none
  if [[ "$2" == none ]]; then
    git -C repo rm -q --ignore-unmatch model.toml
  else
    echo "compute_scale = $2" > repo/model.toml
    git -C repo add model.toml
  fi
  echo "$1" > repo/history.txt
  git -C repo add history.txt
  git -C repo commit -q -m "$1"
}
for i in 00 01 02 03 04 05 06 07 08 09 10 11; do
  scale=1.0
  [[ 10#$i -ge 8 ]] && scale=1.6
  [[ $i == 05 ]] && scale=none
  commit "c$i" "$scale"
  [[ $i == 00 ]] && git -C repo tag good
done
git -C repo tag bad
sha() { git -C repo rev-parse "$1" | cut -c1-12; }
C05=$(sha ":/^c05")
C07=$(sha ":/^c07")
C08=$(sha ":/^c08")

bisect_ok manifest.toml b.db bisect
expect_eq "first bad" "$(json bisect.json 'd["first_bad"]')" "$C08"
expect_eq "last good" "$(json bisect.json 'd["last_good"]')" "$C07"
expect_eq "skipped" "$(json bisect.json '" ".join(d["skipped"])')" "$C05"
expect_eq "c05 step" "$(json bisect.json "[s['verdict'] for s in d['steps'] if s['version'] == '$C05'][0]")" untestable
[[ -f "b.db.builds/$(git -C repo rev-parse ":/^c05").failed" ]] || fail "no failed-build marker for c05"
[[ -s "b.db.builds/$(git -C repo rev-parse ":/^c05").log" ]] || fail "no build log for c05"

# git bisect run's view: the bad commit is bad, the commit that does not build is skipped.
git -C repo checkout -q bad
exit_code_of "$CULPRIT" verdict manifest.toml --db b.db --json > verdict_bad.json 2> verdict_bad.log
expect_eq "verdict on bad ($(cat verdict_bad.json); $(tail -5 verdict_bad.log))" "$RC" 1
git -C repo checkout -q ":/^c05"
exit_code_of "$CULPRIT" verdict manifest.toml --db b.db > verdict_broken.txt 2> verdict_broken.log
expect_eq "verdict on the broken commit ($(tail -5 verdict_broken.log))" "$RC" 125
echo "ok: culprit $C08 found, $C05 skipped; verdict bad=1, broken=125"
