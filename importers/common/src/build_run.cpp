// Records of every rank -> the run file's contents: ranks put in order, the steps every rank
// recorded, collectives matched across ranks, clock models, then each rank's events
// (run_events.cpp) and the run's meta and echo (run_meta.cpp). Only the runfile library
// (culprit_runfile) writes the file.
#include <algorithm>
#include <set>

#include "culprit/common/sha256.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/build_run.hpp"
#include "run_parts.hpp"

namespace culprit::importers {
namespace {

// The ranks missing from `traces` (sorted by rank) below `world`, the first 8 listed.
std::string missing_ranks(const std::vector<RankTrace>& traces, int world) {
  std::string missing;
  int listed = 0;
  std::size_t k = 0;
  for (int r = 0; r < world && listed < 8; ++r) {
    while (k < traces.size() && traces[k].rank < r) ++k;
    if (k < traces.size() && traces[k].rank == r) continue;
    missing += (listed++ ? ", " : "") + std::to_string(r);
  }
  return missing + (world - static_cast<int>(traces.size()) > listed ? ", ..." : "");
}

// Sorts the traces by rank; refuses a rank given twice, a file that says no rank, two formats
// and (without --partial) a job with ranks missing.
void order_ranks(std::vector<RankTrace>& traces, const BuildOptions& o, ImportSummary& s) {
  if (traces.size() == 1 && traces[0].rank < 0) {
    traces[0].rank = 0;
    traces[0].rank_source = "single file";
    s.warnings.push_back(traces[0].file +
                         ": the file does not say its rank: taken as rank 0 of a 1-rank job");
  }
  for (const RankTrace& t : traces) {
    if (t.rank < 0) {
      throw UsageError(t.file +
                       ": cannot tell which rank this file is (no distributedInfo.rank "
                       "and no rank<R> in the file name): rename it rank<R>.json");
    }
  }
  std::stable_sort(traces.begin(), traces.end(),
                   [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  int world = 0;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    if (i > 0 && traces[i].rank == traces[i - 1].rank) {
      throw UsageError(traces[i - 1].file + " and " + traces[i].file + " are both rank " +
                       std::to_string(traces[i].rank) + ": give one file per rank");
    }
    world = std::max({world, traces[i].world_size, traces[i].rank + 1});
    if (traces[i].format != traces[0].format) {
      throw UsageError(traces[i].file + " is " + traces[i].format + " but " + traces[0].file +
                       " is " + traces[0].format + ": import one job's files, in one format");
    }
  }
  s.world_size = world;
  if (static_cast<int>(traces.size()) == world) return;
  if (!o.partial) {
    throw UsageError("the job has " + std::to_string(world) + " ranks but " +
                     std::to_string(traces.size()) + " file(s) were given (missing rank(s) " +
                     missing_ranks(traces, world) +
                     "): give every rank's file, or pass --partial to import a subset");
  }
  s.partial = true;
  s.warnings.push_back("partial import: " + std::to_string(traces.size()) + " of " +
                       std::to_string(world) +
                       " ranks; collectives are matched among the imported ranks only");
}

// Every rank's rule (rank_source less the rank's own process and device), the distinct ones
// in rank order joined by "; ".
std::string rank_rule(const std::vector<RankTrace>& traces) {
  std::vector<std::string> rules;
  for (const RankTrace& t : traces) {
    std::string rule = t.rank_source.substr(0, t.rank_source.find(" (process "));
    if (t.format == "nsys" && t.process >= 0)
      rule = (t.device >= 0 ? "a rank per (process, GPU) of the export; number from "
                            : "a rank per process of the export; number from ") +
             rule;
    if (std::find(rules.begin(), rules.end(), rule) == rules.end()) rules.push_back(rule);
  }
  std::string out;
  for (const std::string& r : rules) out += (out.empty() ? "" : "; ") + r;
  return out;
}

// The job as the mapping rules see it: each rank's steps and collectives.
struct Job {
  std::vector<RankSteps> steps;
  std::vector<std::vector<RankCollective>> colls;
  std::set<int> common;  // the steps every rank recorded
};

// Steps every rank recorded; the others are left out (an incomplete step would end the usable
// timeline of the analysis), warned per file.
std::set<int> keep_common_steps(const std::vector<RankTrace>& traces, Job& job, ImportSummary& s) {
  std::set<int> common;
  for (const StepSpan& x : job.steps[0].steps) common.insert(x.step);
  for (std::size_t r = 1; r < traces.size(); ++r) {
    std::set<int> both;
    for (const StepSpan& x : job.steps[r].steps) {
      if (common.count(x.step)) both.insert(x.step);
    }
    common = std::move(both);
  }
  for (int step : steps_cut_short(traces, job.colls, s.warnings)) common.erase(step);
  for (std::size_t r = 0; r < traces.size(); ++r) {
    const std::size_t before = job.steps[r].steps.size();
    std::erase_if(job.steps[r].steps, [&](const StepSpan& x) { return !common.count(x.step); });
    if (job.steps[r].steps.size() != before) {
      s.warnings.push_back(traces[r].file + ": " +
                           std::to_string(before - job.steps[r].steps.size()) +
                           " step(s) not recorded whole by every rank are left out");
    }
    std::erase_if(job.colls[r], [&](const RankCollective& c) { return !common.count(c.step); });
  }
  if (common.empty()) {
    throw UsageError("no step is recorded in every file (" + traces[0].file +
                     " and the others share none): are they of one job and one profiling window?");
  }
  return common;
}

// Steps and collectives of every rank, collectives matched across ranks by identifiers (those
// that contradict each other dropped under --partial).
Job map_job(std::vector<RankTrace>& traces, const BuildOptions& o, ImportSummary& s) {
  Job job;
  job.steps.resize(traces.size());
  job.colls.resize(traces.size());
  for (std::size_t r = 0; r < traces.size(); ++r) {
    job.steps[r] = find_steps(traces[r], o.steps);
    job.colls[r] = rank_collectives(traces[r], job.steps[r]);
  }
  job.common = keep_common_steps(traces, job, s);
  assign_identities(traces, job.colls);
  const CollectiveCheck check = check_collectives(traces, job.colls, o.partial);
  s.warnings.insert(s.warnings.end(), check.warnings.begin(), check.warnings.end());
  for (auto& list : job.colls) {
    std::erase_if(list, [&](const RankCollective& c) {
      return check.dropped.count({c.step, c.ordinal}) > 0;
    });
  }
  return job;
}

// Clock models from the collectives (step labels that disagree with them warned); ranks read
// from one export share its clock exactly (nsys: one session's timestamps), marked `shared`.
std::vector<RankClock> job_clocks(const std::vector<RankTrace>& traces, const Job& job,
                                  std::vector<bool>& shared, ImportSummary& s) {
  std::vector<RankClock> clocks = clock_models(job.colls, job.steps);
  check_step_numbers(traces, job.steps, clocks, s.warnings);
  shared.assign(traces.size(), false);
  for (std::size_t r = 1; r < traces.size(); ++r) {
    if (traces[r].clock_domain.empty() || traces[r].clock_domain != traces[0].clock_domain)
      continue;
    clocks[r] = RankClock{};
    shared[r] = true;
  }
  return clocks;
}

// Per collective whose process group has ranks not imported: "step:seq ..." (partial only).
std::string incomplete_collectives(const std::vector<RankTrace>& traces, const Job& job,
                                   ImportSummary& s) {
  std::string incomplete;
  if (!s.partial) return incomplete;
  for (const auto& [step, seq] : collectives_missing_members(traces, job.colls)) {
    incomplete +=
        (incomplete.empty() ? "" : " ") + std::to_string(step) + ":" + std::to_string(seq);
    ++s.incomplete_collectives;
  }
  return incomplete;
}

// Rank r's clock model in the run file, warned when it rests on nothing or contradicts itself.
runfile::ClockModel clock_model(std::int32_t rank, const RankTrace& t, const RankClock& clock,
                                bool shared, ImportSummary& s) {
  runfile::ClockModel m;
  m.rank = rank;
  m.host = t.host;
  m.ref_ns = clock.ref_ns;
  m.offset_ns = clock.offset_ns;
  m.uncertainty_ns = clock.uncertainty_ns;
  m.exchanges = clock.constraints;
  if (rank > 0 && clock.constraints == 0 && !shared) {
    s.warnings.push_back(t.file +
                         ": no collective shared with every rank: its clock is taken as rank "
                         "0's, with unknown uncertainty");
  }
  if (clock.contradicted) {
    s.warnings.push_back(t.file +
                         ": the collectives' order contradicts every constant clock offset "
                         "(clock drift?): the median offset is kept");
  }
  return m;
}

void add_provenance(std::int32_t rank, const RankTrace& t, runfile::RunFileContents& c) {
  c.provenance.push_back({rank, "trace_file", t.file});
  c.provenance.push_back({rank, "trace_rank", std::to_string(t.rank)});
  c.provenance.push_back({rank, "trace_rank_source", t.rank_source});
  c.provenance.push_back({rank, "trace_events", std::to_string(t.events_read)});
}

void add_gemm(GemmTotals& total, const GemmTotals& g) {
  total.kernels += g.kernels;
  total.ns += g.ns;
  total.without_shapes += g.without_shapes;
  total.shaped_ns += g.shaped_ns;
  total.flops += g.flops;
}

// Two captures never share their steps' nanosecond timestamps; one capture imported again,
// from other file names or another compression, gives the same text and so the same digest.
std::string steps_digest(const runfile::RunFileContents& c) {
  std::string steps;
  for (const runfile::EventRecord& e : c.events) {
    if (e.kind != runfile::EventKind::kStep) continue;
    steps += std::to_string(e.rank) + ' ' + std::to_string(e.step) + ' ' +
             std::to_string(e.begin_ns) + ' ' + std::to_string(e.end_ns) + '\n';
  }
  return sha256_hex(steps);
}

// The measured steps (from `warmup_until` on) among the common ones; none is refused.
int steady_steps(const std::set<int>& common, int warmup_until, const BuildOptions& o) {
  int steady = 0;
  for (int x : common) steady += x >= warmup_until ? 1 : 0;
  if (steady == 0) {
    throw UsageError("--warmup " + std::to_string(o.warmup_steps) + " leaves none of the " +
                     std::to_string(common.size()) + " recorded step(s) as a measured step");
  }
  return steady;
}

// Events by (step, rank, begin); kernel classes counted into the summary; each warning once (a
// rule said of every rank of one file is said once).
void finish(runfile::RunFileContents& c, const ClassCounts& classes, ImportSummary& s) {
  for (std::size_t k = 0; k < classes.size(); ++k) {
    if (classes[k] > 0)
      s.kernel_classes[kernel_class_name(static_cast<KernelClass>(k))] = classes[k];
  }
  std::stable_sort(c.events.begin(), c.events.end(),
                   [](const runfile::EventRecord& a, const runfile::EventRecord& b) {
                     if (a.step != b.step) return a.step < b.step;
                     if (a.rank != b.rank) return a.rank < b.rank;
                     return a.begin_ns < b.begin_ns;
                   });
  s.events = static_cast<std::int64_t>(c.events.size());
  std::set<std::string> said;
  std::erase_if(s.warnings, [&](const std::string& w) { return !said.insert(w).second; });
}

}  // namespace

ImportedRun build_run(std::vector<RankTrace> traces, const BuildOptions& o) {
  if (traces.empty()) throw UsageError("import needs at least one trace file");
  ImportedRun out;
  ImportSummary& s = out.summary;
  runfile::RunFileContents& c = out.contents;
  check_one_job(traces);
  order_ranks(traces, o, s);
  s.rank_rule = rank_rule(traces);
  s.format = traces[0].format;
  s.ranks = static_cast<int>(traces.size());
  Job job = map_job(traces, o, s);
  s.steps = static_cast<int>(job.common.size());
  std::vector<bool> shared;
  const std::vector<RankClock> clocks = job_clocks(traces, job, shared, s);
  RunFacts facts;
  facts.incomplete = incomplete_collectives(traces, job, s);
  facts.warmup_until = *job.common.begin() + std::max(0, o.warmup_steps);
  GlobalNames names(c);
  ClassCounts classes{};
  for (std::size_t r = 0; r < traces.size(); ++r) {
    RankTrace& t = traces[r];
    // The job's rank id, also in a partial import (its ranks 2 and 3 stay 2 and 3).
    const auto rank = static_cast<std::int32_t>(t.rank);
    s.files.push_back(t.file);
    s.events_read += t.events_read;
    add_rank_events({rank, &t, &job.steps[r], &job.colls[r]}, names, c, s, classes);
    c.clocks.push_back(clock_model(rank, t, clocks[r], shared[r], s));
    for (const std::string& w : t.warnings) s.warnings.push_back(w);
    add_provenance(rank, t, c);
    add_gemm(facts.gemm, gemm_totals(t, job.steps[r], facts.warmup_until));
    t.records = {};  // memory stays O(kept events): a rank's records go once its events are built
  }
  finish(c, classes, s);
  facts.steady = steady_steps(job.common, facts.warmup_until, o);
  s.backend = job_backend(traces[0]);
  facts.steps_digest = steps_digest(c);
  c.meta = import_meta(s, facts);
  c.provenance.push_back({-1, "import_warnings", std::to_string(s.warnings.size())});
  c.provenance.push_back({-1, "rank_rule", s.rank_rule});
  c.config_json = import_echo(o, s, facts);
  return out;
}

}  // namespace culprit::importers
