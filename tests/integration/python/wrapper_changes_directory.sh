#!/usr/bin/env bash
# Issue 15 item 6: {config}, {out}, CULPRIT_CONFIG and CULPRIT_RUN_FILE are absolute, so a
# version whose command is a wrapper that changes directory still finds them. `culprit run` is
# started with a relative --db (whose run folders are then relative too); one version reads the
# placeholders, the other the environment; both wrappers `cd /` first. Also: the launched
# command sees the culprit Python module on PYTHONPATH.
# Usage: wrapper_changes_directory.sh BIN_DIR WORK_DIR SOURCE_DIR
set -euo pipefail
bin=$1 work=$2 src=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cat > by_args.sh <<EOF2
#!/usr/bin/env bash
set -eu
printf '%s\n' "\$1" "\$2" "\$CULPRIT_CONFIG" "\$CULPRIT_RUN_FILE" "\${PYTHONPATH:-}" > "$work/seen.\$OMPI_COMM_WORLD_RANK.args"
cd /
exec "$bin/culprit-step" --config "\$1" --out "\$2"
EOF2
cat > by_env.sh <<EOF2
#!/usr/bin/env bash
set -eu
cd /
exec "$bin/culprit-step" --config "\$CULPRIT_CONFIG" --out "\$CULPRIT_RUN_FILE"
EOF2
chmod +x by_args.sh by_env.sh
cat > wrapper.toml <<EOF2
[experiment]
name = "wrapper"
repetitions = 1
warmup_steps = 1
steps = 2
timeout_s = 60

[baseline]
version = "args"
ranks = 2

[baseline.model]
layers = 2
microbatches = 1
tokens = 32
hidden = 32
buckets = 1
compute = "sleep"

[versions.args]
command = ["./by_args.sh", "{config}", "{out}"]

[versions.env]
command = ["./by_env.sh"]

[[vary]]
factor = "version"
levels = ["env"]
EOF2
rc=0
"$bin/culprit" run wrapper.toml --db rel.db > run.txt 2> run.err || rc=$?
if ((rc != 0)); then
  tail -20 run.err; sqlite3 rel.db "SELECT status, error FROM runs" || true
  echo "FAIL: culprit run exited $rc"; exit 1
fi
ok=$(sqlite3 rel.db "SELECT count(*) FROM runs WHERE status = 'ok'")
[[ $ok == 2 ]] || { cat run.err; sqlite3 rel.db "SELECT status, error FROM runs"; echo "FAIL: $ok of 2 runs ok"; exit 1; }
mapfile -t seen < seen.0.args
for path in "${seen[@]:0:4}"; do
  [[ $path == /* ]] || { echo "FAIL: '$path' is not absolute"; exit 1; }
done
[[ ${seen[0]} == "${seen[2]}" && ${seen[1]} == "${seen[3]}" ]] ||
  { echo "FAIL: placeholders and environment differ: ${seen[*]}"; exit 1; }
[[ ${seen[4]} == "$src/python"* && -f $src/python/culprit/__init__.py ]] ||
  { echo "FAIL: PYTHONPATH '${seen[4]}' does not start with $src/python"; exit 1; }
echo "ok: both wrappers ran from /, paths absolute, PYTHONPATH=${seen[4]}"
