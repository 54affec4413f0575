#!/usr/bin/env bash
# Every manifest in tests/data/manifests/invalid must make the real binary exit 2 and write
# nothing (no database, no file at all), for `culprit plan` and for `culprit run`.
#   invalid_corpus.sh plan|run BIN_DIR DATA_DIR WORK_DIR
# plan: stderr must contain every line of the case's .expect file (file:line:col first).
# run:  exit code 2 and an untouched working directory only.
set -u
mode=$1 bin=$2/culprit data=$3/manifests/invalid work=$4
rm -rf "$work" && mkdir -p "$work"
failures=0 cases=0

for manifest in "$data"/*.toml; do
  name=$(basename "$manifest" .toml)
  case_dir=$work/$name
  mkdir -p "$case_dir"
  args=("$mode" "$manifest")
  [[ $mode == run ]] && args+=(--db "$case_dir/culprit.db")
  (cd "$case_dir" && "$bin" "${args[@]}" >"$work/$name.out" 2>"$work/$name.err")
  rc=$?
  cases=$((cases + 1))
  if [[ $rc -ne 2 ]]; then
    echo "FAIL $name: exit code $rc, expected 2"; sed 's/^/    /' "$work/$name.err"
    failures=$((failures + 1))
  fi
  if [[ -n $(ls -A "$case_dir") ]]; then
    echo "FAIL $name: files were written: $(ls -A "$case_dir" | tr '\n' ' ')"
    failures=$((failures + 1))
  fi
  if [[ $mode == plan ]]; then
    if [[ -s $work/$name.out ]]; then
      echo "FAIL $name: printed on stdout for a bad manifest"; failures=$((failures + 1))
    fi
    while IFS= read -r line; do
      [[ -z $line ]] && continue
      if ! grep -qF -- "$line" "$work/$name.err"; then
        echo "FAIL $name: message lacks: $line"; sed 's/^/    /' "$work/$name.err"
        failures=$((failures + 1))
      fi
    done <"$data/$name.expect"
  fi
done

if [[ $cases -lt 20 ]]; then
  echo "FAIL: only $cases invalid manifests (expected at least 20)"; failures=$((failures + 1))
fi
echo "$cases invalid manifests through 'culprit $mode': $failures failure(s)"
[[ $failures -eq 0 ]]
