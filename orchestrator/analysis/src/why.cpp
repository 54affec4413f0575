// The why verdict's rules (docs/methodology.md, "Why: counters and telemetry"): each
// explanation supported, refuted or undecided by fixed thresholds (why_rule), with evidence.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "culprit/analysis/why.hpp"
#include "why_numbers.hpp"

namespace culprit::analysis {

const char* why_status_name(WhyStatus status) {
  switch (status) {
    case WhyStatus::kSupported:
      return "supported";
    case WhyStatus::kRefuted:
      return "refuted";
    case WhyStatus::kUndecided:
      break;
  }
  return "undecided";
}

namespace why_detail {
std::pair<const KernelCounters*, const KernelCounters*> pair_kernels(
    const std::vector<KernelCounters>& baseline, const std::vector<KernelCounters>& candidate,
    const std::string& pattern);
const KernelCounters* longest(const std::vector<const KernelCounters*>& ks);
std::vector<const KernelCounters*> chosen(const std::vector<KernelCounters>& all,
                                          const std::string& pattern, const char* side);
}  // namespace why_detail

namespace {

using why_detail::Maybe;
using why_detail::ratio;
using why_detail::SideNumbers;
namespace rule = why_rule;

struct Sides {
  const SideNumbers* b;  // null: one export alone
  const SideNumbers& c;
  Maybe time_ratio() const { return b ? ratio(c.duration_ns, b->duration_ns) : std::nullopt; }
};

WhyEvidence ev(const std::string& metric, const Sides& s, Maybe SideNumbers::*field,
               std::string num, std::string den, std::string unit) {
  return WhyEvidence{metric,         s.b ? s.b->*field : std::nullopt,
                     s.c.*field,     std::move(num),
                     std::move(den), std::move(unit)};
}

WhyEvidence duration_ev(const Sides& s) {
  return ev("duration", s, &SideNumbers::duration_ns, s.c.duration_source, "launch", "ns");
}

WhyExplanation decided(std::string name, WhyStatus status, std::string reason,
                       std::vector<WhyEvidence> evidence) {
  return WhyExplanation{std::move(name), status, std::move(reason), std::move(evidence)};
}

// Shared first checks of the explanations of a change: a baseline, a duration, a slowdown.
std::optional<WhyExplanation> not_a_slowdown(const std::string& name, const Sides& s,
                                             std::vector<WhyEvidence> evidence) {
  if (s.b == nullptr) {
    return decided(name, WhyStatus::kUndecided, "one export: no baseline to compare with",
                   std::move(evidence));
  }
  const Maybe tr = s.time_ratio();
  if (!tr) {
    return decided(name, WhyStatus::kUndecided, "no duration on both sides", std::move(evidence));
  }
  if (*tr < rule::kSlower) {
    return decided(name, WhyStatus::kRefuted,
                   fmt::format("the candidate is not slower (duration x{:.3f})", *tr),
                   std::move(evidence));
  }
  return std::nullopt;
}

// Bytes grew at least kProportional as much as time did.
std::optional<bool> bytes_proportional(const Sides& s) {
  const Maybe br = s.b ? ratio(s.c.bytes, s.b->bytes) : std::nullopt;
  const Maybe tr = s.time_ratio();
  if (!br || !tr) return std::nullopt;
  return *br - 1.0 >= rule::kProportional * (*tr - 1.0);
}

std::string ratios(const Sides& s) {
  return fmt::format("DRAM bytes x{:.2f} while the duration grew x{:.2f}",
                     *ratio(s.c.bytes, s.b->bytes), *s.time_ratio());
}

WhyExplanation hbm_traffic(const Sides& s) {
  std::vector<WhyEvidence> e = {
      duration_ev(s), ev("dram_bytes", s, &SideNumbers::bytes, s.c.bytes_source, "launch", "byte"),
      ev("dram_bandwidth_pct_of_peak", s, &SideNumbers::bandwidth_pct, "DRAM byte/s", "peak byte/s",
         "%")};
  const std::string name = "hbm_traffic";
  if (auto early = not_a_slowdown(name, s, e)) return *early;
  const auto grew = bytes_proportional(s);
  if (!grew) return decided(name, WhyStatus::kUndecided, "no DRAM bytes on both sides", e);
  if (!*grew) {
    return decided(name, WhyStatus::kRefuted, ratios(s) + ": bytes did not grow in proportion", e);
  }
  if (!s.c.bandwidth_pct) {
    return decided(name, WhyStatus::kUndecided,
                   ratios(s) + ", but no peak bandwidth to tell whether HBM is the limit", e);
  }
  const bool near = *s.c.bandwidth_pct >= rule::kBusyPct;
  return decided(name, near ? WhyStatus::kSupported : WhyStatus::kRefuted,
                 ratios(s) + fmt::format(", bandwidth {:.1f} % of peak ({} {:.0f} %)",
                                         *s.c.bandwidth_pct, near ? ">=" : "<", rule::kBusyPct),
                 e);
}

// The compute signals that fell from baseline to candidate, and whether any was measured.
std::pair<std::vector<std::string>, bool> fallen(const SideNumbers& b, const SideNumbers& c) {
  std::vector<std::string> fell;
  bool known = false;
  auto rate = [&](const Maybe& bv, const Maybe& cv, const char* what) {
    if (!bv || !cv || *bv <= 0.0) return;
    known = true;
    if (*cv / *bv <= rule::kFell) fell.push_back(fmt::format("{} x{:.2f}", what, *cv / *bv));
  };
  auto points = [&](const Maybe& bv, const Maybe& cv, const char* what) {
    if (!bv || !cv) return;
    known = true;
    if (*bv - *cv >= rule::kFellPoints) {
      fell.push_back(fmt::format("{} {:.1f} -> {:.1f} %", what, *bv, *cv));
    }
  };
  rate(b.flop_rate, c.flop_rate, "FLOP/s");
  points(b.sm_active_pct, c.sm_active_pct, "SM active");
  points(b.tensor_pct, c.tensor_pct, "tensor pipe");
  rate(b.clock_hz, c.clock_hz, "SM clock");
  return {fell, known};
}

WhyExplanation compute_underuse(const Sides& s) {
  std::vector<WhyEvidence> e = {
      duration_ev(s),
      ev("dram_bytes", s, &SideNumbers::bytes, s.c.bytes_source, "launch", "byte"),
      ev("flop_rate", s, &SideNumbers::flop_rate, s.c.flops_source, "duration", "FLOP/s"),
      ev("flop_rate_pct_of_peak", s, &SideNumbers::flop_pct, "FLOP/s", "peak FLOP/s", "%"),
      ev("sm_active", s, &SideNumbers::sm_active_pct, "SM Active Cycles", "Elapsed Cycles", "%"),
      ev("tensor_pipe_active", s, &SideNumbers::tensor_pct, "tensor pipe", "active cycles", "%"),
      ev("sm_clock", s, &SideNumbers::clock_hz, "SM Frequency", "1", "hz")};
  const std::string name = "compute_underuse";
  if (auto early = not_a_slowdown(name, s, e)) return *early;
  const auto grew = bytes_proportional(s);
  if (!grew) return decided(name, WhyStatus::kUndecided, "no DRAM bytes on both sides", e);
  if (*grew) {
    return decided(name, WhyStatus::kRefuted, ratios(s) + ": the traffic grew with the time", e);
  }
  const auto [fell, known] = fallen(*s.b, s.c);
  if (!known) {
    return decided(name, WhyStatus::kUndecided,
                   ratios(s) +
                       "; no FLOP count, SM active cycles, tensor pipe or clock on both "
                       "sides (pass --flops N)",
                   e);
  }
  if (fell.empty()) {
    return decided(name, WhyStatus::kRefuted, ratios(s) + "; no compute figure fell", e);
  }
  std::string what;
  for (const std::string& f : fell) what += (what.empty() ? "" : ", ") + f;
  return decided(name, WhyStatus::kSupported, ratios(s) + "; fell: " + what, e);
}

WhyExplanation clock_throttling(const Sides& s, const WhyOptions& o) {
  std::vector<WhyEvidence> e = {
      ev("sm_clock", s, &SideNumbers::clock_hz, "SM Frequency", "1", "hz")};
  if (o.telemetry && o.telemetry->peers_clock_hz > 0.0) return clock_throttling_of(*o.telemetry, e);
  const std::string name = "clock_throttling";
  if (auto early = not_a_slowdown(name, s, e)) return *early;
  const Maybe cr = ratio(s.c.clock_hz, s.b->clock_hz);
  if (cr && *cr <= rule::kThrottled) {
    return decided(name, WhyStatus::kSupported,
                   fmt::format("the candidate's SM clock is {:.1f} % of the baseline's", *cr * 100),
                   e);
  }
  if (!o.telemetry_note.empty()) return decided(name, WhyStatus::kUndecided, o.telemetry_note, e);
  return decided(name, WhyStatus::kUndecided,
                 "needs telemetry of the job (culprit import --format dcgm|nvidia-smi|nvml-csv "
                 "--attach RUN): ncu locks the SM clock to base by default, so its clock says "
                 "nothing of the job's",
                 e);
}

Maybe larger(const Maybe& a, const Maybe& b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

WhyExplanation launch_bound(const Sides& s) {
  const SideNumbers& c = s.c;
  std::vector<WhyEvidence> e = {
      ev("flop_rate_pct_of_peak", s, &SideNumbers::flop_pct, "FLOP/s", "peak FLOP/s", "%"),
      ev("sm_throughput", s, &SideNumbers::sm_throughput_pct, "busiest SM sub-unit", "its peak",
         "%"),
      ev("dram_bandwidth_pct_of_peak", s, &SideNumbers::bandwidth_pct, "DRAM byte/s", "peak byte/s",
         "%"),
      ev("memory_throughput", s, &SideNumbers::memory_pct, "busiest memory unit", "its peak", "%"),
      ev("waves_per_sm", s, &SideNumbers::waves, "blocks", "SMs x blocks per SM", "")};
  const Maybe compute = larger(c.flop_pct, c.sm_throughput_pct);
  const Maybe memory = larger(c.bandwidth_pct, c.memory_pct);
  const std::string name = "launch_bound";
  if ((compute && *compute >= rule::kBusyPct) || (memory && *memory >= rule::kBusyPct)) {
    auto pct = [](const Maybe& v) { return v ? fmt::format("{:.1f} %", *v) : std::string("n/a"); };
    return decided(name, WhyStatus::kRefuted,
                   fmt::format("a unit is busy: compute {}, memory {} (>= {:.0f} %)", pct(compute),
                               pct(memory), rule::kBusyPct),
                   e);
  }
  if (c.waves && *c.waves >= 1.0) {
    return decided(name, WhyStatus::kRefuted,
                   fmt::format("{:.2f} waves per SM: the grid fills the GPU", *c.waves), e);
  }
  if (compute && memory && c.waves) {
    return decided(name, WhyStatus::kSupported,
                   fmt::format("compute {:.1f} % and memory {:.1f} % of peak with {:.2f} waves",
                               *compute, *memory, *c.waves),
                   e);
  }
  return decided(name, WhyStatus::kUndecided,
                 "needs compute and memory throughput and the waves per SM (ncu's "
                 "SpeedOfLight and LaunchStats sections)",
                 e);
}

WhyExplanation different_kernel(const Sides& s, const std::string& b, const std::string& c) {
  std::vector<WhyEvidence> e;
  if (s.b == nullptr) {
    return decided("different_kernel", WhyStatus::kUndecided, "one export: no baseline", e);
  }
  if (b == c) return decided("different_kernel", WhyStatus::kRefuted, "the same kernel", e);
  return decided("different_kernel", WhyStatus::kSupported,
                 "baseline ran " + b + ", candidate " + c, e);
}

WhyReconciliation reconcile(const Sides& s, const WhyOptions& o) {
  WhyReconciliation r;
  r.launches_per_step = o.launches_per_step;
  if (s.b && s.b->duration_ns) r.baseline_ms = *s.b->duration_ns / 1e6;
  if (s.c.duration_ns) r.candidate_ms = *s.c.duration_ns / 1e6;
  if (r.baseline_ms && r.candidate_ms) {
    r.change_ms = *r.candidate_ms - *r.baseline_ms;
    r.counters_ms = *r.change_ms * o.launches_per_step;
  }
  r.blamed_excess_ms = o.blamed_excess_ms;
  if (r.blamed_excess_ms && r.counters_ms) r.unclassified_ms = *r.blamed_excess_ms - *r.counters_ms;
  r.clocks =
      "ncu durations, by default with clocks locked to base (--clock-control base) and caches "
      "flushed between replay passes: comparable with another ncu duration, not with a trace's";
  return r;
}

}  // namespace

WhyExplanation clock_throttling_of(const ClockEvidence& t, std::vector<WhyEvidence> e) {
  const double r = t.rank_clock_hz / t.peers_clock_hz;
  e.push_back(WhyEvidence{
      t.metric + "_telemetry", t.peers_clock_hz, t.rank_clock_hz,
      fmt::format("rank {} median of {} samples", t.rank, t.rank_samples),
      fmt::format("median of {} peers' medians ({} samples)", t.peers, t.peer_samples), "hz"});
  const std::string text =
      fmt::format("rank {}'s SM clock {:.0f} MHz is {:.1f} % of its peers' {:.0f} MHz {}", t.rank,
                  t.rank_clock_hz / 1e6, r * 100.0, t.peers_clock_hz / 1e6, t.where);
  const WhyStatus status = r <= rule::kThrottled   ? WhyStatus::kSupported
                           : r >= rule::kSameClock ? WhyStatus::kRefuted
                                                   : WhyStatus::kUndecided;
  return decided("clock_throttling", status, text, std::move(e));
}

WhyVerdict why_verdict(const std::vector<KernelCounters>* baseline,
                       const std::vector<KernelCounters>& candidate, const WhyOptions& options) {
  const KernelCounters* kb = nullptr;
  const KernelCounters* kc = nullptr;
  if (baseline != nullptr) {
    std::tie(kb, kc) = why_detail::pair_kernels(*baseline, candidate, options.kernel);
  } else {
    kc = why_detail::longest(why_detail::chosen(candidate, options.kernel, "candidate"));
  }
  const SideNumbers nc = why_detail::side_numbers(*kc, options);
  std::optional<SideNumbers> nb;
  if (kb != nullptr) nb = why_detail::side_numbers(*kb, options);
  const Sides s{nb ? &*nb : nullptr, nc};
  WhyVerdict v;
  v.kernel = kc->kernel;
  if (kb != nullptr) v.baseline = why_detail::make_side(*kb, *nb, options);
  v.candidate = why_detail::make_side(*kc, nc, options);
  v.explanations = {hbm_traffic(s), compute_underuse(s), clock_throttling(s, options),
                    launch_bound(s),
                    different_kernel(s, kb ? kb->kernel : std::string(), kc->kernel)};
  v.reconciliation = reconcile(s, options);
  return v;
}

}  // namespace culprit::analysis
