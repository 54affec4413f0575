#pragma once
// What `culprit run` prints: the sweep's result (planned, ok, not ok, pending, each run) as
// text or one JSON document, and the one-line outcome of a run for the progress log.

#include <string>

#include "culprit/bisect/decide_sweep.hpp"
#include "culprit/launch/execute.hpp"
#include "culprit/report/document.hpp"

namespace culprit::report {

// "ok, median 12.345 ms" or "<status>: <error>".
std::string run_outcome_text(const launch::RunReport& run);

// The command that continues the sweep on the same store and runs: `culprit run MANIFEST --db
// DB [--shard I/N]`, each word quoted for a shell where it needs it (issue 38 item 10: a hint
// without --db reran against culprit.db).
std::string run_again_command(const std::string& db, const std::string& manifest,
                              const std::string& shard);

// What `culprit run` prints. `db`: the store the sweep wrote; `manifest`: its path and `shard`
// the --shard it ran ("1/1": all), for the commands to continue; `sampling`: what adaptive
// sampling added and decided after the planned runs.
std::string run_result_document(const std::string& db, const std::string& manifest,
                                const std::string& shard, const launch::ExecuteResult& result,
                                const bisect::SweepDecisions& sampling, Format format);

}  // namespace culprit::report
