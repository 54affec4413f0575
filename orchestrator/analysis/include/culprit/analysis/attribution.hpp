#pragma once
// Blind attribution of one run: reads events and clock models only, never the configuration
// echo (the injection truth). Per step: the step time, the last arriver at the collective that
// cost the most waiting, the decomposition along the critical path and its first unexplained
// divergence. Per run: the culprit (the (rank, phase, layer) first in the most steps), the
// symptom it caused (ranks that waited), delay costs, what-if, efficiency ratios and the
// sampled-activity figure.

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "culprit/analysis/decomposition.hpp"
#include "culprit/analysis/delay_costs.hpp"
#include "culprit/analysis/efficiency.hpp"
#include "culprit/analysis/phase_stats.hpp"
#include "culprit/analysis/whatif.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::analysis {

struct AttributionOptions {
  NoiseModel noise;
  double peak_flops_per_device = 0;  // from the configuration's model section; 0 = unknown
  double sample_period_s = 1.0;
  // A (rank, phase, layer) becomes the run's culprit when it is the first divergence in at least
  // this share of the steady-state steps (hiccups and contention move around; a cause repeats);
  // failing that, a (rank, phase) over all its layers.
  double culprit_min_step_share = 0.5;
};

struct StepAttribution {
  StepDecomposition decomposition;  // step, warmup, time, components, culprit
  int last_arriver = -1;            // at the collective with the most waiting; -1 without one
  bool last_arriver_decided = true;
  int collective = -1;  // seq of that collective
  double total_wait_ns = 0;
  int waiting_ranks = 0;  // ranks that waited beyond noise there
  double median_wait_ns = 0;
  double whatif_ms = 0;  // this step replayed with the culprit rank at the peers' median; NaN: none
  // Non-empty in a partial import when the step's culprit (decomposition.culprit, then cleared)
  // was reached through a collective whose members were not all imported: a missing rank may
  // have arrived later. Says which collective; the step blames nobody.
  std::string cannot_decide;
};

struct RunCulprit {
  bool found = false;
  int rank = -1;
  std::string phase;
  int layer = -1;  // -1: the phase has no layer, or the cause is in every layer of the phase
  int microbatch = -1;
  int step = -1;  // the first step it was the first divergence in
  int collective = -1;
  double excess_ms = 0;  // median excess over those steps
  int steps_blamed = 0;
  int steady_steps = 0;
  // Non-empty when the rank's cost is explained by waiting for a CPU (its threads runnable but
  // not running, from its sched.* provenance, beyond its peers'): another process shared its
  // core; or, for a culprit pooled over layers, when the rank diverged now and then in every
  // phase alike (sporadic slowness of the machine its CPU waits do not show). The divergence is
  // then the environment's, not the code's; the text says what to do.
  std::string environment;
  bool is_code() const { return found && environment.empty(); }
};

// The waiting a culprit caused on the other ranks: a symptom, not a cause.
struct Symptom {
  int waiting_ranks = 0;      // median over blamed steps of the ranks that waited beyond noise
  double median_wait_ms = 0;  // median wait of those ranks
  double total_wait_ms = 0;   // median over blamed steps of the summed waits
};

struct AlignmentSummary {
  double max_uncertainty_ns = 0;
  std::vector<int> contradicted_ranks;  // clock model broke causality beyond its bound
  int undecided_collectives = 0;        // last arriver within clock uncertainty
};

struct RunAttribution {
  std::int64_t run_id = 0;
  int ranks = 0;
  int warmup_steps = 0;
  double median_step_ms = 0;
  std::vector<StepAttribution> steps;
  RunCulprit culprit;
  Symptom symptom;
  std::vector<std::pair<int, int>> last_arriver_counts;  // (rank, steady steps), most first
  int undecided_steps = 0;
  // A partial import (meta.partial = 1: some of the job's ranks only). Collectives whose process
  // group has ranks that were not imported (meta.incomplete_collectives) have no decided last
  // arriver, and a step whose culprit was reached through one blames nobody (cannot_decide).
  bool partial = false;
  int incomplete_collectives = 0;  // of the run's matched collectives
  // Non-empty when no culprit was found because steps could not be decided (partial run).
  std::string cannot_decide;
  // Non-empty when noise could not be estimated without the straggler (PhaseStats::noise_note):
  // "culprit: none" then means "cannot decide", not "nobody".
  std::string noise_note;
  // Non-empty when the divergence that held enough steps cost them nothing: at the collective
  // the walk reached it through, the ranks waited for it less than a quarter of its excess (work
  // split differently between phases on each rank, lateness that alternates between ranks).
  // Such a divergence is not a cause: no culprit, and this says why.
  std::string costless_note;
  DelayCosts costs;  // over steady-state collectives
  WhatIf what_if;    // culprit rank at the peers' median (rank -1: no culprit)
  Efficiency efficiency;
  SampledActivity activity;
  AlignmentSummary alignment;
};

// Every rank it names is the job's rank id (storage::RunData::rank_id): a partial import of ranks
// 2 and 3 blames rank 2, not position 0.
RunAttribution attribute_run(const storage::RunData& run, const AttributionOptions& options = {});

// `a` with every rank it names passed through `to` (attribute_run ends with run.rank_id).
RunAttribution with_ranks(RunAttribution a, const std::function<int(int)>& to);
// `a` (of `run`) with the run's rank positions in place of the job's ids: for the consumers that
// index the run's per-rank data (figures, the Perfetto export); identity for a dense run.
RunAttribution in_positions(const RunAttribution& a, const storage::RunData& run);

}  // namespace culprit::analysis
