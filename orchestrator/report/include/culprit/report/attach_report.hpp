#pragma once
// `culprit import --attach`: what was attached to the run.
//   {run_id, rank, phase, kernels, launches, metrics, warnings}  (ncu)
//   {run_id, rank, samples, warnings}                            (telemetry; rank null unless
//   given)
#include <string>

#include "culprit/analysis/attach.hpp"
#include "culprit/report/document.hpp"

namespace culprit::report {

// What `culprit import --attach` prints.
std::string attach_document(const analysis::AttachSummary& s, Format format);

}  // namespace culprit::report
