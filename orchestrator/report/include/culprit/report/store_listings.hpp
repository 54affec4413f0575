#pragma once
// What `culprit runs`, `culprit export` (csv / json) and `culprit merge` print: listings of the
// results store as text tables, CSV and JSON documents (strings; the CLI prints).

#include <string>
#include <vector>

#include "culprit/report/document.hpp"
#include "culprit/storage/merge.hpp"
#include "culprit/storage/queries.hpp"

namespace culprit::report {

// `culprit runs`: one row per stored run.
std::string runs_json(const std::vector<storage::RunSummary>& runs);
std::string runs_text(const std::vector<storage::RunSummary>& runs);

// `culprit export --format csv|json`: one row per stored step.
std::string steps_json(const std::vector<storage::StepExport>& rows);
std::string steps_csv(const std::vector<storage::StepExport>& rows);

// `culprit merge`: what each input added to the output.
struct MergedInput {
  std::string input;
  storage::MergeStats stats;
};
std::string merge_json(const std::string& output, const std::vector<MergedInput>& inputs);
std::string merge_text(const std::string& output, const std::vector<MergedInput>& inputs,
                       std::int64_t runs_stored);

// The documents of `culprit runs` and `culprit merge`; `culprit export`'s file: the steps as
// CSV, or as JSON with `format` kJson (csv and json are both its own formats, not --json's).
std::string runs_document(const std::vector<storage::RunSummary>& runs, Format format);
std::string merge_document(const std::string& output, const std::vector<MergedInput>& inputs,
                           std::int64_t runs_stored, Format format);
std::string steps_document(const std::vector<storage::StepExport>& rows, Format format);

}  // namespace culprit::report
