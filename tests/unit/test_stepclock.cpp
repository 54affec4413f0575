#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "stepclock/clock.hpp"
#include "stepclock/clock_model.hpp"
#include "stepclock/event_buffer.hpp"

using stepclock::ClockModel;
using stepclock::EventBuffer;
using stepclock::EventKind;
using stepclock::PingPong;
using stepclock::RawClock;
using stepclock::RegionIds;

namespace {

// A peer whose raw clock is true * (1 + drift) + offset, probed by rank 0 (true clock) with
// one-way delays `out_ns` and `back_ns`.
PingPong exchange(std::int64_t true_send, std::int64_t out_ns, std::int64_t back_ns,
                  double peer_offset_ns, double peer_drift_ppm) {
  const std::int64_t true_at_peer = true_send + out_ns;
  const auto peer = static_cast<std::int64_t>(std::llround(
      static_cast<double>(true_at_peer) * (1 + peer_drift_ppm * 1e-6) + peer_offset_ns));
  return PingPong{true_send, peer, true_at_peer + back_ns};
}

}  // namespace

TEST_CASE("raw clock adds the injected offset and drift") {
  RawClock clock;
  CHECK_FALSE(clock.skewed());
  CHECK(clock.apply(1'000) == 1'000);
  clock.set_skew(500e6, 100.0, 1'000'000'000);
  CHECK(clock.skewed());
  CHECK(clock.apply(1'000'000'000) == 1'000'000'000 + 500'000'000);
  // One second after the reference, 100 ppm adds 100 us.
  CHECK(clock.apply(2'000'000'000) == 2'500'100'000LL);
  const std::int64_t before = stepclock::monotonic_ns();
  const std::int64_t skewed = clock.now();
  CHECK(skewed - before >= 499'000'000);
}

// A CI run's run file said finished_at 15:34:15 while unix_offset_ns put its first event at
// 15:34:16.0016: time() read the coarse clock, a kernel tick behind just after a second began.
TEST_CASE("the ISO-8601 now is the second CLOCK_REALTIME is in, also just after it began") {
  timespec next{};
  clock_gettime(CLOCK_REALTIME, &next);
  next.tv_sec += 1;
  next.tv_nsec = 200'000;  // 0.2 ms into the next second: the coarse clock lags there
  while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &next, nullptr) != 0) {
  }
  timespec before{};
  clock_gettime(CLOCK_REALTIME, &before);
  const std::string now = stepclock::iso8601_utc_now();
  tm utc{};
  gmtime_r(&before.tv_sec, &utc);
  char second[32];
  strftime(second, sizeof(second), "%Y-%m-%dT%H:%M:%SZ", &utc);
  CHECK(now == second);  // time() gave the second before here (5 of 5 tries)
}

TEST_CASE("best offset keeps the exchange with the minimum round trip") {
  std::vector<PingPong> xs;
  // Asymmetric slow exchanges first, one fast symmetric exchange, then more slow ones.
  xs.push_back(exchange(1'000'000, 90'000, 1'000, -250'000, 0));
  xs.push_back(exchange(2'000'000, 2'000, 2'000, -250'000, 0));
  xs.push_back(exchange(3'000'000, 1'000, 70'000, -250'000, 0));
  const stepclock::OffsetEstimate best = stepclock::best_offset(xs);
  REQUIRE(best.valid);
  CHECK(best.rtt_ns == doctest::Approx(4'000));
  CHECK(best.peer_ns == xs[1].peer_ns);
  CHECK(best.offset_ns == doctest::Approx(250'000).epsilon(1e-9));
  CHECK_FALSE(stepclock::best_offset({}).valid);
}

TEST_CASE("clock model recovers offset and drift within its uncertainty") {
  const double offset = 500e6;  // the peer runs 500 ms ahead
  const double drift = 100.0;   // and 100 ppm fast
  std::vector<PingPong> start;
  std::vector<PingPong> end;
  for (int k = 0; k < 12; ++k) {
    const std::int64_t jitter = 500 + 300 * (k % 4);
    start.push_back(exchange(1'000'000'000LL + k * 50'000, jitter, 800, offset, drift));
    end.push_back(exchange(3'000'000'000LL + k * 50'000, 700, jitter, offset, drift));
  }
  const ClockModel model =
      stepclock::clock_model(2, stepclock::best_offset(start), stepclock::best_offset(end), 12);
  CHECK(model.rank == 2);
  CHECK(model.exchanges == 12);
  CHECK(model.uncertainty_ns ==
        doctest::Approx(std::max(model.start_rtt_ns, model.end_rtt_ns) / 2));
  // aligned = peer * 1/(1+d) - offset/(1+d): drift -d/(1+d) ppm, offset ~ -500 ms at ref.
  // Each end is known within the uncertainty, so the slope within 2u over the span.
  const double span_ns = 2e9;
  CHECK(std::abs(model.drift_ppm - (-drift / (1 + drift * 1e-6))) <=
        2 * model.uncertainty_ns / span_ns * 1e6);
  CHECK(model.offset_ns == doctest::Approx(-offset - drift * 1e-6 * 1e9).epsilon(1e-5));
  // Every true instant in the run maps back within the uncertainty bound.
  for (std::int64_t t = 1'000'000'000; t <= 3'000'000'000; t += 250'000'000) {
    const auto raw = static_cast<std::int64_t>(
        std::llround(static_cast<double>(t) * (1 + drift * 1e-6) + offset));
    CHECK(std::abs(runfile::aligned_ns(model, raw) - static_cast<double>(t)) <=
          model.uncertainty_ns + 1.0);
  }
}

TEST_CASE("clock model without an end exchange has no drift") {
  std::vector<PingPong> start{exchange(1'000, 100, 100, 42'000, 0)};
  const ClockModel model =
      stepclock::clock_model(1, stepclock::best_offset(start), stepclock::OffsetEstimate{}, 10);
  CHECK(model.drift_ppm == 0.0);
  CHECK(model.offset_ns == doctest::Approx(-42'000));
  CHECK(model.uncertainty_ns == doctest::Approx(100));
}

TEST_CASE("event buffer records identifiers and times of nested regions") {
  EventBuffer buffer(3, 4);
  const RegionIds step{EventKind::kStep, 0, 7, -1, -1, -1, 0};
  const RegionIds reduce{EventKind::kCollective, 2, 7, -1, -1, 1, 4096};
  const std::int64_t outer = buffer.begin(step, 100);
  const std::int64_t inner = buffer.begin(reduce, 110);
  buffer.end(inner, 150);
  buffer.end(outer, 200);
  REQUIRE(buffer.size() == 2);
  const stepclock::EventRecord& s = buffer.data()[outer];
  const stepclock::EventRecord& c = buffer.data()[inner];
  CHECK(s.rank == 3);
  CHECK(s.kind == EventKind::kStep);
  CHECK(s.begin_ns == 100);
  CHECK(s.end_ns == 200);
  CHECK(c.kind == EventKind::kCollective);
  CHECK(c.name == 2);
  CHECK(c.seq == 1);
  CHECK(c.bytes == 4096);
  CHECK(c.step == 7);
  CHECK(c.begin_ns == 110);
  CHECK(c.end_ns == 150);
}

TEST_CASE("a full event buffer drops and counts instead of allocating") {
  EventBuffer buffer(0, 2);
  const RegionIds ids{};
  CHECK(buffer.begin(ids, 1) == 0);
  CHECK(buffer.begin(ids, 2) == 1);
  CHECK(buffer.begin(ids, 3) == EventBuffer::kDropped);
  buffer.end(EventBuffer::kDropped, 4);  // harmless
  stepclock::EventRecord extra;
  CHECK_FALSE(buffer.record(extra));
  CHECK(buffer.size() == 2);
  CHECK(buffer.dropped() == 2);
}

TEST_CASE("two threads recording at once get distinct slots") {
  constexpr int kPerThread = 5000;
  EventBuffer buffer(0, 2 * kPerThread);
  auto record = [&buffer](std::int32_t step) {
    for (int i = 0; i < kPerThread; ++i) {
      const std::int64_t slot =
          buffer.begin(RegionIds{EventKind::kCompute, 0, step, i, -1, -1, 0}, i);
      buffer.end(slot, i + 1);
    }
  };
  std::thread a(record, 0);
  std::thread b(record, 1);
  a.join();
  b.join();
  REQUIRE(buffer.size() == 2 * kPerThread);
  std::set<std::pair<int, int>> seen;
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    seen.emplace(buffer.data()[i].step, buffer.data()[i].microbatch);
  }
  CHECK(seen.size() == 2 * kPerThread);
  CHECK(buffer.dropped() == 0);
}
