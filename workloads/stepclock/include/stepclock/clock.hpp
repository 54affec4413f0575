#pragma once
// The raw clock every event is stamped with: CLOCK_MONOTONIC, plus an optional injected skew
// (offset and drift) so tests can check that the clock model recovers a known misalignment.
// Raw timestamps are stored exactly as this clock returns them.

#include <time.h>

#include <cstdint>
#include <string>

namespace stepclock {

inline std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

class RawClock {
 public:
  // skewed(t) = t + offset_ns + drift_ppm * 1e-6 * (t - reference_ns)
  void set_skew(double offset_ns, double drift_ppm, std::int64_t reference_ns) {
    offset_ns_ = offset_ns;
    drift_ = drift_ppm * 1e-6;
    reference_ns_ = reference_ns;
    skewed_ = offset_ns != 0.0 || drift_ppm != 0.0;
  }
  bool skewed() const { return skewed_; }

  std::int64_t now() const {
    const std::int64_t t = monotonic_ns();
    return skewed_ ? apply(t) : t;
  }

  std::int64_t apply(std::int64_t t) const {
    const double extra = offset_ns_ + drift_ * static_cast<double>(t - reference_ns_);
    return t + static_cast<std::int64_t>(extra >= 0 ? extra + 0.5 : extra - 0.5);
  }

 private:
  double offset_ns_ = 0.0;
  double drift_ = 0.0;
  std::int64_t reference_ns_ = 0;
  bool skewed_ = false;
};

// Unix time minus `clock`'s time, in ns, from one CLOCK_REALTIME read between two reads of
// `clock` (their midpoint): the run meta unix_offset_ns, by which GPU telemetry stamped in Unix
// time is placed on the run's (rank 0's) clock. Exact to about the reads' spacing (< 1 us).
inline std::int64_t unix_offset_ns(const RawClock& clock) {
  const std::int64_t before = clock.now();
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  const std::int64_t after = clock.now();
  const std::int64_t unix_ns = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  return unix_ns - (before + (after - before) / 2);
}

// Now as ISO-8601 UTC to the second (run meta started_at, finished_at), from CLOCK_REALTIME as
// unix_offset_ns reads it. Not time(): glibc reads the coarse clock there, up to a kernel tick
// behind, so just after a second began it gave the second before, and a run's finished_at came
// before its own last event placed by unix_offset_ns.
inline std::string iso8601_utc_now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  const time_t now = ts.tv_sec;
  tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace stepclock
