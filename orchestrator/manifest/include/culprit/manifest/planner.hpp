#pragma once
// Manifest -> Plan: the configurations (baseline first, then one factor varied at a time, or
// the factorial cross when `design = "factorial"`), the runs in execution order with their
// seeds, the warnings, and an estimated cost.

#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/plan.hpp"

namespace culprit::manifest {

// Plans for this host (std::thread::hardware_concurrency() cores, for the oversubscription
// warning). Throws culprit::UsageError when a configuration is invalid (e.g. a delay on a rank
// that a `ranks` level does not have).
Plan make_plan(const Manifest& manifest);
Plan make_plan(const Manifest& manifest, unsigned host_cores);

// Adds `blocks` more repetitions of the given configurations (indexes into plan.configs; empty
// = all) after the last planned run, in the plan's order (shuffled balanced blocks when
// interleaved). Deterministic: the same plan and arguments give the same runs.
void append_blocks(Plan& plan, int blocks, const std::vector<int>& configs = {});

}  // namespace culprit::manifest
