#pragma once
// `culprit attribute` output: one run's blind attribution as a text report or a JSON document
// (docs/cli.md, "attribute").

#include <string>

#include "culprit/analysis/attribution.hpp"
#include "culprit/report/document.hpp"
#include "culprit/report/json_writer.hpp"

namespace culprit::report {

// Shared pieces (explain uses them too).
// A step's culprit, a run's culprit (with its evidence), or null when none was found.
void write_culprit(JsonWriter& json, const analysis::Culprit& culprit);
void write_run_culprit(JsonWriter& json, const analysis::RunCulprit& culprit);
void write_symptom(JsonWriter& json, const analysis::Symptom& symptom);
void write_sampled_activity(JsonWriter& json, const analysis::SampledActivity& activity);
void write_ratio(JsonWriter& json, const analysis::Ratio& ratio);
// Opens a component's object with the fields that say which one it is (category, rank, phase,
// layer): a step's decomposition and explain's components name them alike.
JsonWriter& begin_component(JsonWriter& json, analysis::Category category, int rank,
                            const std::string& phase, int layer);
std::string describe_ratio(const analysis::Ratio& ratio);
std::string describe_phase(const std::string& phase, int layer, bool late_call = false);
// describe_phase with " microbatch N" when the culprit has one (-1: none, not printed).
std::string describe_place(const std::string& phase, int layer, int microbatch);
// "3 ranks waited a median 55.00 ms at allreduce #0" ("1 rank waited"; without the
// collective's number when it has none).
std::string describe_waiters(int waiting_ranks, double median_wait_ms, int collective);

// What `culprit attribute` prints: JSON {steps[...], summary{...}}; text, the summary first
// (culprit, symptom, what-if, decomposition of the median step, delay costs, efficiency, sampled
// activity), then one line per step.
std::string attribution_document(const analysis::RunAttribution& attribution, Format format);

}  // namespace culprit::report
