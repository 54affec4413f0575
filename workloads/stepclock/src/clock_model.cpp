#include "stepclock/clock_model.hpp"

#include <algorithm>

namespace stepclock {

OffsetEstimate best_offset(const std::vector<PingPong>& exchanges) {
  OffsetEstimate best;
  for (const PingPong& x : exchanges) {
    const double rtt = static_cast<double>(x.recv_ns - x.send_ns);
    if (rtt < 0) continue;  // cannot happen on a monotonic clock; never trust it
    if (!best.valid || rtt < best.rtt_ns) {
      best.valid = true;
      best.rtt_ns = rtt;
      best.peer_ns = x.peer_ns;
      // Midpoint in integers first: summing two large timestamps as doubles would lose ns.
      const std::int64_t half_span = (x.recv_ns - x.send_ns) / 2;
      const double midpoint_frac = static_cast<double>((x.recv_ns - x.send_ns) % 2) / 2.0;
      best.offset_ns = static_cast<double>(x.send_ns + half_span - x.peer_ns) + midpoint_frac;
    }
  }
  return best;
}

ClockModel clock_model(std::int32_t rank, const OffsetEstimate& start, const OffsetEstimate& end,
                       std::int32_t exchanges) {
  ClockModel model;
  model.rank = rank;
  model.exchanges = exchanges;
  if (!start.valid) return model;
  model.ref_ns = start.peer_ns;
  model.offset_ns = start.offset_ns;
  model.start_rtt_ns = start.rtt_ns;
  model.uncertainty_ns = start.rtt_ns / 2.0;
  if (end.valid && end.peer_ns != start.peer_ns) {
    const double span = static_cast<double>(end.peer_ns - start.peer_ns);
    model.drift_ppm = (end.offset_ns - start.offset_ns) / span * 1e6;
    model.end_rtt_ns = end.rtt_ns;
    // Linear interpolation between two bounded estimates stays within the larger bound.
    model.uncertainty_ns = std::max(start.rtt_ns, end.rtt_ns) / 2.0;
  }
  return model;
}

}  // namespace stepclock
