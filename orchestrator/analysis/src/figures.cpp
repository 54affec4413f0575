#include "culprit/analysis/figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/phase_stats.hpp"
#include "culprit/analysis/robust.hpp"
#include "culprit/analysis/timeline.hpp"
#include "runfile/run_file.hpp"

namespace culprit::analysis {
namespace {

using Grid = std::vector<std::vector<double>>;  // [rank][step column]

const StepAttribution* attribution_of(const RunAttribution& a, int step) {
  for (const StepAttribution& s : a.steps) {
    if (s.decomposition.step == step) return &s;
  }
  return nullptr;
}

const CollectiveTiming* decisive(const std::vector<CollectiveTiming>& collectives,
                                 const StepAttribution* s) {
  if (!s || s->collective < 0) return nullptr;
  for (const CollectiveTiming& c : collectives) {
    if (c.step == s->decomposition.step && c.seq == s->collective) return &c;
  }
  return nullptr;
}

// Arrival minus the median arrival at the step's decisive collective.
Grid lateness_grid(const Timeline& t, const std::vector<CollectiveTiming>& collectives,
                   const RunAttribution& a, const std::vector<int>& steps) {
  Grid grid(static_cast<std::size_t>(t.ranks()), std::vector<double>(steps.size(), kNaN));
  for (std::size_t j = 0; j < steps.size(); ++j) {
    const CollectiveTiming* c = decisive(collectives, attribution_of(a, steps[j]));
    if (!c) continue;
    const double median = median_of(c->arrival_ns);
    for (std::size_t r = 0; r < c->arrival_ns.size() && r < grid.size(); ++r)
      grid[r][j] = (c->arrival_ns[r] - median) / 1e6;
  }
  return grid;
}

// Sum of the excess beyond noise of a rank's phases in each step.
Grid excess_grid(const Timeline& t, const PhaseStats& stats, const std::vector<int>& steps) {
  std::map<int, std::size_t> column;
  for (std::size_t j = 0; j < steps.size(); ++j) column[steps[j]] = j;
  Grid grid(static_cast<std::size_t>(t.ranks()), std::vector<double>(steps.size(), 0.0));
  for (std::size_t e = 0; e < t.run->events.size(); ++e) {
    const storage::Event& x = t.run->events[e];
    const auto it = column.find(x.step);
    if (it == column.end() || std::isnan(stats.typical_ns[e])) continue;
    const auto index = static_cast<EventIndex>(e);
    if (!stats.diverges(t, index)) continue;
    grid[static_cast<std::size_t>(x.rank)][it->second] += stats.excess_ns(t, index) / 1e6;
  }
  return grid;
}

double row_extreme(const std::vector<double>& row) {
  double m = 0;
  for (double v : row) {
    if (!std::isnan(v)) m = std::max(m, std::abs(v));
  }
  return m;
}

std::vector<int> most_extreme(const Grid& grid, int count) {
  std::vector<int> order(grid.size());
  for (std::size_t r = 0; r < grid.size(); ++r) order[r] = static_cast<int>(r);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return row_extreme(grid[static_cast<std::size_t>(x)]) >
           row_extreme(grid[static_cast<std::size_t>(y)]);
  });
  order.resize(std::min(order.size(), static_cast<std::size_t>(std::max(count, 0))));
  return order;
}

// Rows by rank position; shown (rows, text) with the job's rank ids.
HeatMap heat_map(const storage::RunData& run, const Grid& grid, const std::vector<int>& steps,
                 const std::set<int>& kept, int ranks_per_bin, std::string quantity) {
  HeatMap map;
  map.quantity = std::move(quantity);
  map.steps = steps;
  map.ranks = static_cast<int>(grid.size());
  map.ranks_per_bin = ranks_per_bin;
  auto max_of = [&](int first, int last) {
    std::vector<double> values(steps.size(), kNaN);
    for (int r = first; r <= last; ++r) {
      if (ranks_per_bin > 1 && kept.count(r)) continue;
      const std::vector<double>& row = grid[static_cast<std::size_t>(r)];
      for (std::size_t j = 0; j < steps.size(); ++j) {
        if (!std::isnan(row[j]) && (std::isnan(values[j]) || row[j] > values[j]))
          values[j] = row[j];
      }
    }
    return values;
  };
  const int ranks = map.ranks;
  for (int first = 0; first < ranks; first += ranks_per_bin) {
    const int last = std::min(ranks, first + ranks_per_bin) - 1;
    map.rows.push_back({run.rank_id(first), run.rank_id(last), false, max_of(first, last)});
    if (ranks_per_bin == 1) continue;
    for (int r = first; r <= last; ++r) {
      if (kept.count(r))
        map.rows.push_back(
            {run.rank_id(r), run.rank_id(r), true, grid[static_cast<std::size_t>(r)]});
    }
  }
  bool any = false;
  for (const HeatRow& row : map.rows) {
    for (double v : row.values_ms) {
      if (std::isnan(v)) continue;
      map.max_ms = any ? std::max(map.max_ms, v) : v;
      map.min_ms = any ? std::min(map.min_ms, v) : v;
      any = true;
    }
  }
  if (ranks_per_bin > 1) {
    std::vector<int> list;
    for (int r : kept) list.push_back(run.rank_id(r));
    map.aggregation = fmt::format(
        "{} ranks in bins of {} consecutive ranks, each cell the maximum over its bin; the {} "
        "most extreme ranks ({}) kept as their own rows and left out of their bins",
        ranks, ranks_per_bin, list.size(), fmt::join(list, ", "));
  }
  return map;
}

// The steady step most like the run's slow steps: among those whose first divergence is the
// run's culprit (else all steady steps), the one whose time is the median.
std::size_t representative_step(const Timeline& t, const RunAttribution& a, std::string& why) {
  std::vector<std::size_t> pool;
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    if (t.steps[i].warmup) continue;
    const StepAttribution* s = attribution_of(a, t.steps[i].step);
    const bool blamed = s && a.culprit.found && s->decomposition.culprit.found &&
                        s->decomposition.culprit.rank == a.culprit.rank &&
                        s->decomposition.culprit.phase == a.culprit.phase;
    if (!a.culprit.found || blamed) pool.push_back(i);
  }
  why = a.culprit.found
            ? "the step of median time among the steps whose first divergence is the run's culprit"
            : "the steady-state step of median time";
  if (pool.empty()) {
    for (std::size_t i = 0; i < t.steps.size(); ++i) pool.push_back(i);
    why = "the step of median time (no steady-state step)";
  }
  std::stable_sort(pool.begin(), pool.end(), [&](std::size_t x, std::size_t y) {
    return t.steps[x].time_ms < t.steps[y].time_ms;
  });
  return pool[pool.size() / 2];
}

StepLanes step_lanes(const Timeline& t, const std::vector<CollectiveTiming>& collectives,
                     const RunAttribution& a, const Grid& lateness, const FigureOptions& options) {
  StepLanes lanes;
  lanes.ranks = t.ranks();
  if (t.steps.empty()) return lanes;
  const std::size_t index = representative_step(t, a, lanes.why);
  const StepTime& step = t.steps[index];
  const std::size_t column = index;  // the maps have one column per Timeline::steps entry
  lanes.found = true;
  lanes.step = step.step;
  lanes.time_ms = step.time_ms;
  const double start = step.boundary_ns - step.time_ms * 1e6;
  const StepAttribution* s = attribution_of(a, step.step);
  if (s) {
    lanes.divergence = s->decomposition.culprit;
    lanes.decisive_collective = s->collective;
    lanes.last_arriver = s->last_arriver;
  }
  // Which ranks get a lane, and why.
  std::map<int, std::string> shown;
  auto add = [&](int rank, const std::string& why) {
    if (rank < 0 || rank >= t.ranks() || static_cast<int>(shown.size()) >= options.max_lanes)
      return;
    shown.emplace(rank, why);
  };
  if (t.ranks() <= options.max_lanes) {
    for (int r = 0; r < t.ranks(); ++r) add(r, "");
    lanes.selection = fmt::format("all {} ranks", t.ranks());
  } else {
    if (lanes.divergence.found) add(lanes.divergence.rank, "first divergence");
    add(lanes.last_arriver, "last arriver");
    add(step.last_rank, "finished last");
    add(0, fmt::format("rank {}", t.run->rank_id(0)));
    for (int r : most_extreme(lateness, options.max_lanes / 4)) {
      if (!std::isnan(lateness[static_cast<std::size_t>(r)][column])) add(r, "extreme arrival");
    }
    const int rest = options.max_lanes - static_cast<int>(shown.size());
    for (int i = 0; i < rest; ++i) add(static_cast<int>((i + 0.5) * t.ranks() / rest), "sample");
    lanes.selection = fmt::format(
        "{} of {} ranks: the first divergence, the last arriver, the last to finish, rank {}, "
        "the latest arrivers, and evenly spaced ranks",
        shown.size(), t.ranks(), t.run->rank_id(0));
  }
  for (const auto& [rank, why] : shown) {
    Lane lane;
    lane.rank = t.run->rank_id(rank);
    lane.why = why;
    for (EventIndex e : t.by_begin[static_cast<std::size_t>(rank)]) {
      const storage::Event& x = t.event(e);
      if (x.step != step.step || x.kind == storage::EventKind::kStep) continue;
      LaneEvent ev;
      ev.name = t.run->names[x.name];
      ev.kind = runfile::event_kind_name(x.kind);
      ev.begin_ms = (t.begin_ns[static_cast<std::size_t>(e)] - start) / 1e6;
      ev.end_ms = (t.end_ns[static_cast<std::size_t>(e)] - start) / 1e6;
      ev.wait_end_ms = ev.begin_ms;
      const std::int32_t k = t.collective_of[static_cast<std::size_t>(e)];
      if (k >= 0) {
        const CollectiveTiming& ct = collectives[static_cast<std::size_t>(k)];
        ev.wait_end_ms = ev.begin_ms + ct.wait_ns[static_cast<std::size_t>(rank)] / 1e6;
      }
      ev.layer = x.layer;
      ev.microbatch = x.microbatch;
      ev.seq = x.seq;
      ev.divergence = lanes.divergence.found && e == lanes.divergence.event;
      if (ev.divergence) lanes.divergence_begin_ms = ev.begin_ms;
      lane.events.push_back(std::move(ev));
    }
    lanes.lanes.push_back(std::move(lane));
  }
  lanes.divergence.rank = t.run->rank_id(lanes.divergence.rank);
  lanes.last_arriver = t.run->rank_id(lanes.last_arriver);
  return lanes;
}

}  // namespace

RunFigures run_figures(const storage::RunData& run, const RunAttribution& shown,
                       const AttributionOptions& options, const FigureOptions& figure) {
  const RunAttribution attribution = in_positions(shown, run);
  const Timeline timeline = build_timeline(run);
  const std::vector<CollectiveTiming> collectives = time_collectives(timeline);
  const PhaseStats stats = phase_stats(timeline, collectives, options.noise);
  std::vector<int> steps;
  for (const StepTime& s : timeline.steps) steps.push_back(s.step);

  RunFigures figures;
  figures.run_id = run.run_id;
  const Grid lateness = lateness_grid(timeline, collectives, attribution, steps);
  const Grid excess = excess_grid(timeline, stats, steps);
  const int ranks = run.ranks;
  int per_bin = 1;
  std::set<int> kept;
  if (ranks > figure.max_rows) {
    const int half = std::max(1, figure.kept_ranks / 2);
    for (int r : most_extreme(lateness, half)) kept.insert(r);
    for (int r : most_extreme(excess, figure.kept_ranks - static_cast<int>(kept.size())))
      kept.insert(r);
    if (attribution.culprit.found) kept.insert(attribution.culprit.rank);
    const int bins = std::max(1, figure.max_rows - static_cast<int>(kept.size()));
    per_bin = (ranks + bins - 1) / bins;
  }
  figures.lateness = heat_map(run, lateness, steps, kept, per_bin,
                              "arrival at the step's decisive collective minus the median arrival "
                              "(ms; positive = late)");
  figures.excess = heat_map(run, excess, steps, kept, per_bin,
                            "sum of the rank's phase excess beyond noise over the peers' median "
                            "(ms)");
  figures.lanes = step_lanes(timeline, collectives, attribution, lateness, figure);
  return figures;
}

}  // namespace culprit::analysis
