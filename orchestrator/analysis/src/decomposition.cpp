#include "culprit/analysis/decomposition.hpp"

#include "culprit/common/lookup.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace culprit::analysis {
namespace {

// Aggregates path segments by (category, rank, name index, layer) while walking.
class Ledger {
 public:
  void add(Category category, int rank, int name, int layer, double ns) {
    if (ns != 0) totals_[{category, rank, name, layer}] += ns;
  }
  std::vector<Component> components(const storage::RunData& run) const {
    std::vector<Component> result;
    result.reserve(totals_.size());
    for (const auto& [key, ns] : totals_) {
      const auto& [category, rank, name, layer] = key;
      Component c;
      c.category = category;
      c.rank = rank;
      c.phase = name < 0 ? std::string() : run.names[static_cast<std::size_t>(name)];
      c.layer = layer;
      c.ns = ns;
      result.push_back(std::move(c));
    }
    return result;
  }

 private:
  std::map<std::tuple<Category, int, int, int>, double> totals_;
};

class CriticalPathWalk {
 public:
  CriticalPathWalk(const Timeline& t, const std::vector<CollectiveTiming>& collectives,
                   const PhaseStats& stats, const std::vector<int>& arrivers)
      : t_(t), collectives_(collectives), stats_(stats), arrivers_(arrivers) {}

  StepDecomposition walk(std::size_t step_index) {
    const StepTime& st = t_.steps[step_index];
    StepDecomposition d;
    d.step = st.step;
    d.warmup = st.warmup;
    d.time_ns = st.time_ms * 1e6;
    d.last_finisher = st.last_rank;
    ledger_ = Ledger();
    divergences_.clear();
    limit_ = st.boundary_ns - d.time_ns;
    double time = st.boundary_ns;
    int rank = st.last_rank;
    std::size_t restrict = t_.by_end[static_cast<std::size_t>(rank)].size();
    int arrived_at = -1;  // the collective whose call we reached this rank through
    int via = -1;         // the latest collective the walk passed through
    // Every iteration consumes an event or ends the walk; the bound only guards bad input.
    for (std::size_t guard = 0; time > limit_ && guard <= t_.run->events.size(); ++guard) {
      const auto& ends = t_.by_end[static_cast<std::size_t>(rank)];
      auto last =
          std::upper_bound(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(restrict), time,
                           [&](double value, EventIndex e) {
                             return value < t_.end_ns[static_cast<std::size_t>(e)];
                           });
      if (last == ends.begin()) {
        // Nothing earlier on this rank: the step's own start bounds a host gap; before it,
        // the rest is unclassified.
        const EventIndex own = t_.step_event[step_index][static_cast<std::size_t>(rank)];
        const double start = own < 0 ? time : t_.begin_ns[static_cast<std::size_t>(own)];
        if (start < time) gap(rank, arrived_at, std::max(start, limit_), time);
        break;
      }
      const auto i = static_cast<std::size_t>(last - ends.begin() - 1);
      const EventIndex x = ends[i];
      const double end = t_.end_ns[static_cast<std::size_t>(x)];
      if (end < time) {
        gap(rank, late_call(rank, x, arrived_at, time), std::max(end, limit_), time);
        time = end;
        if (time <= limit_) break;
      }
      arrived_at = -1;
      const int k = t_.collective_of[static_cast<std::size_t>(x)];
      if (k >= 0) {
        const auto uk = static_cast<std::size_t>(k);
        const int source = arrivers_[uk];
        const double arrival =
            std::min(collectives_[uk].arrival_ns[static_cast<std::size_t>(source)], time);
        ledger_.add(Category::kExposedComm, -1, collectives_[uk].name, -1,
                    time - std::max(arrival, limit_));
        time = arrival;
        arrived_at = k;
        via = k;
        if (source == rank) {
          restrict = i;
        } else {
          rank = source;
          restrict = t_.by_end[static_cast<std::size_t>(rank)].size();
        }
      } else {
        phase(x, via, time);
        time = std::max(t_.begin_ns[static_cast<std::size_t>(x)], limit_);
        restrict = i;
      }
    }
    d.components = ledger_.components(*t_.run);
    double explained = 0;
    for (const Component& c : d.components) explained += c.ns;
    d.unclassified_ns = d.time_ns - explained;
    d.culprit = first_divergence();
    return d;
  }

 private:
  // The collective whose call ends the gap after event `x` on `rank`: the one the walk arrived
  // through, or an overlapped one issued inside the gap (the walk steps over those).
  int late_call(int rank, EventIndex x, int arrived_at, double gap_end) const {
    if (arrived_at >= 0) return arrived_at;
    const auto& order = t_.by_begin[static_cast<std::size_t>(rank)];
    for (auto p = static_cast<std::size_t>(t_.position(x)) + 1; p < order.size(); ++p) {
      const auto e = static_cast<std::size_t>(order[p]);
      if (t_.begin_ns[e] > gap_end) break;
      if (t_.collective_of[e] >= 0) return t_.collective_of[e];
    }
    return -1;
  }

  void gap(int rank, int arrived_at, double from, double to) {
    double length = to - from;
    if (arrived_at >= 0 && stats_.gap_diverges(static_cast<std::size_t>(arrived_at), rank)) {
      const auto k = static_cast<std::size_t>(arrived_at);
      const double excess = std::min(stats_.gap_excess_ns(k, rank), length);
      const CollectiveTiming& c = collectives_[k];
      ledger_.add(Category::kStraggler, rank, c.name, c.seq, excess);
      length -= excess;
      if (excess > stats_.gap_threshold_ns(rank)) {
        divergences_.push_back(Culprit{
            true, rank, t_.run->names[c.name], c.seq, -1, c.step, c.seq, c.step, excess,
            stats_.typical_gap_ns[k][static_cast<std::size_t>(rank)], stats_.gap_threshold_ns(rank),
            t_.collectives[k].event[static_cast<std::size_t>(rank)], true});
      }
    }
    ledger_.add(Category::kHostGap, -1, -1, -1, length);
  }

  void phase(EventIndex x, int via, double end) {
    const storage::Event& e = t_.event(x);
    const double begin = t_.begin_ns[static_cast<std::size_t>(x)];
    const double aligned_length = end - begin;
    const double inside = end - std::max(begin, limit_);
    const double share = aligned_length > 0 ? inside / aligned_length : 1.0;
    double straggler = 0;
    if (stats_.diverges(t_, x)) {
      straggler = share * std::min(stats_.excess_ns(t_, x), aligned_length);
      ledger_.add(Category::kStraggler, e.rank, e.name, e.layer, straggler);
      if (straggler > stats_.threshold_ns(t_, x)) {
        const CollectiveTiming* c =
            via >= 0 ? &collectives_[static_cast<std::size_t>(via)] : nullptr;
        divergences_.push_back(Culprit{
            true, e.rank, t_.run->names[e.name], e.layer, e.microbatch, e.step, c ? c->seq : -1,
            c ? c->step : -1, stats_.excess_ns(t_, x),
            stats_.typical_ns[static_cast<std::size_t>(x)], stats_.threshold_ns(t_, x), x, false});
      }
    }
    ledger_.add(Category::kTypical, -1, e.name, -1, inside - straggler);
  }

  // The earliest divergence on the path that is not dwarfed by the largest one: a hiccup of a
  // fraction of a millisecond before a 40 ms straggler is noise next to it, not its cause.
  Culprit first_divergence() const {
    double largest = 0;
    for (const Culprit& c : divergences_) largest = std::max(largest, c.excess_ns);
    // Walking back in time: the last one recorded is the earliest.
    for (auto it = divergences_.rbegin(); it != divergences_.rend(); ++it) {
      if (it->excess_ns >= stats_.noise.dominance * largest) return *it;
    }
    return Culprit();
  }

  const Timeline& t_;
  const std::vector<CollectiveTiming>& collectives_;
  const PhaseStats& stats_;
  const std::vector<int>& arrivers_;
  Ledger ledger_;
  std::vector<Culprit> divergences_;  // met on the path, latest first
  double limit_ = 0;
};

}  // namespace

// String literals: each name's data() ends in a NUL, as category_name's callers need.
constexpr LookupEntry<Category, std::string_view> kCategoryNames[] = {
    {Category::kTypical, "typical"},
    {Category::kStraggler, "straggler"},
    {Category::kExposedComm, "exposed_comm"},
    {Category::kHostGap, "host_gap"}};

const char* category_name(Category category) {
  return lookup(kCategoryNames, category, std::string_view("unknown")).data();
}

std::vector<StepDecomposition> decompose_steps(const Timeline& timeline,
                                               const std::vector<CollectiveTiming>& collectives,
                                               const PhaseStats& stats,
                                               const std::vector<int>& critical_arrivers) {
  CriticalPathWalk walk(timeline, collectives, stats, critical_arrivers);
  std::vector<StepDecomposition> result;
  result.reserve(timeline.steps.size());
  for (std::size_t s = 0; s < timeline.steps.size(); ++s) result.push_back(walk.walk(s));
  return result;
}

}  // namespace culprit::analysis
