#pragma once
// What the pictures of `culprit report` show of one run, taken from the same analysis as
// `culprit attribute` (timeline, collective timings, phase statistics, the run's attribution):
// ranks x steps maps of arrival lateness at each step's decisive collective and of per-phase
// excess beyond noise, with ranks aggregated into bins for large runs (the extreme ranks kept
// as their own rows), and the per-rank lanes of one representative slow step.

#include <string>
#include <vector>

#include "culprit/analysis/attribution.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::analysis {

struct FigureOptions {
  int max_rows = 128;  // heat map rows at most (ranks are binned beyond)
  int kept_ranks = 8;  // the most extreme ranks kept as their own rows when binning
  int max_lanes = 24;  // timeline lanes at most
};

struct HeatRow {
  int first_rank = 0;  // the rows cover ranks first_rank..last_rank (the job's ids)
  int last_rank = 0;
  bool kept = false;              // an extreme rank kept out of its bin
  std::vector<double> values_ms;  // one per step column; NaN: no value
};

struct HeatMap {
  std::string quantity;  // what a cell is, in words
  std::vector<int> steps;
  std::vector<HeatRow> rows;  // in rank order
  int ranks = 0;
  int ranks_per_bin = 1;    // 1: one row per rank
  std::string aggregation;  // how rows were aggregated ("" when not)
  double max_ms = 0;
  double min_ms = 0;
};

struct LaneEvent {
  std::string name;
  std::string kind;     // "compute", "collective", "host"
  double begin_ms = 0;  // from the step's start on the aligned clock
  double end_ms = 0;
  double wait_end_ms = 0;  // collectives: arrival + wait (the shaded part); else begin_ms
  int layer = -1;
  int microbatch = -1;
  int seq = -1;
  bool divergence = false;  // the step's first unexplained divergence
};

struct Lane {
  int rank = 0;
  std::string why;  // why this rank is shown
  std::vector<LaneEvent> events;
};

struct StepLanes {
  bool found = false;
  int step = -1;
  double time_ms = 0;
  std::string why;  // how the step was chosen
  int ranks = 0;
  std::string selection;  // which ranks are shown, in words
  std::vector<Lane> lanes;
  Culprit divergence;  // the step's first unexplained divergence
  double divergence_begin_ms = 0;
  int decisive_collective = -1;
  int last_arriver = -1;
};

struct RunFigures {
  std::int64_t run_id = 0;
  HeatMap lateness;
  HeatMap excess;
  StepLanes lanes;
};

// `attribution` must be attribute_run(run, options) of the same run.
RunFigures run_figures(const storage::RunData& run, const RunAttribution& attribution,
                       const AttributionOptions& options, const FigureOptions& figure = {});

}  // namespace culprit::analysis
