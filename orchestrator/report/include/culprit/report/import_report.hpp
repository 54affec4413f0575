#pragma once
// `culprit import`'s output: the stored run id and what was read (text or JSON).

#include <cstdint>
#include <string>

#include "culprit/importers/build_run.hpp"
#include "culprit/report/document.hpp"

namespace culprit::report {

struct ImportReport {
  std::int64_t run_id = 0;
  std::string experiment;
  std::string label;
  bool baseline = false;
  int repetition = 0;
  double median_ms = 0;
  importers::ImportSummary summary;
};

// What `culprit import` prints: {"run_id", "format", "ranks", "steps", "events", "warnings", ...}
// as JSON.
std::string import_document(const ImportReport& r, Format format);

}  // namespace culprit::report
