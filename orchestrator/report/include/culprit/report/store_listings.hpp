#pragma once
// What `culprit runs`, `culprit export` (csv / json) and `culprit merge` print: listings of the
// results store as text tables, CSV and JSON documents (strings; the CLI prints).

#include <string>
#include <vector>

#include "culprit/report/document.hpp"
#include "culprit/storage/merge.hpp"
#include "culprit/storage/queries.hpp"

namespace culprit::report {

// `culprit merge`: what each input added to the output.
struct MergedInput {
  std::string input;
  storage::MergeStats stats;
};

// The documents of `culprit runs` (one row per stored run) and `culprit merge`; `culprit
// export`'s file: one row per stored step, as CSV, or as JSON with `format` kJson (csv and json
// are both its own formats, not --json's).
std::string runs_document(const std::vector<storage::RunSummary>& runs, Format format);
std::string merge_document(const std::string& output, const std::vector<MergedInput>& inputs,
                           std::int64_t runs_stored, Format format);
std::string steps_document(const std::vector<storage::StepExport>& rows, Format format);

}  // namespace culprit::report
