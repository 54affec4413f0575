#pragma once
// The two views of a Plan that `culprit plan` prints: a table for people and one JSON document
// for scripts (configs[{label,factor,level}], runs[{config,repetition,position}], warnings[]).

#include <string>

#include "culprit/manifest/plan.hpp"

namespace culprit::manifest {

std::string render_plan_text(const Plan& plan);
std::string render_plan_json(const Plan& plan);

}  // namespace culprit::manifest
