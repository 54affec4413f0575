#pragma once
// The two views of a Plan that `culprit plan` prints: a table for people and one JSON document
// for scripts (configs[{label,factor,level}], runs[{config,repetition,position}], warnings[]).
// The JSON is built through the canonical culprit::Json (common/), which shares JsonWriter's
// string encoder and number format.

#include <string>

#include "culprit/manifest/plan.hpp"
#include "culprit/report/document.hpp"

namespace culprit::report {

std::string plan_text(const manifest::Plan& plan);
std::string plan_json(const manifest::Plan& plan);
// What `culprit plan` prints.
std::string plan_document(const manifest::Plan& plan, Format format);

}  // namespace culprit::report
