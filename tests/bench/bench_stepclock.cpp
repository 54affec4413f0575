// Cost of one recorded stepclock region (stepclock_begin + stepclock_end through the C API)
// against the bare clock reads it needs (two CLOCK_MONOTONIC reads), and heap allocations in
// steady state (counted by replacing global operator new). Prints figures; never gates CI.
// Run: bench_stepclock  (MPI singleton; or mpirun -np 1 bench_stepclock)

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "stepclock/clock.hpp"
#include "stepclock/event_buffer.hpp"
#include "stepclock/stepclock.h"

namespace {

std::atomic<long> g_allocations{0};

constexpr int kRegions = 200'000;
constexpr int kRepetitions = 7;

volatile std::int64_t g_sink = 0;

double bare_reads_ns_per_pair() {
  const std::int64_t start = stepclock::monotonic_ns();
  std::int64_t acc = 0;
  for (int i = 0; i < kRegions; ++i) {
    const std::int64_t a = stepclock::monotonic_ns();
    const std::int64_t b = stepclock::monotonic_ns();
    acc += b - a;
  }
  g_sink = acc;
  return static_cast<double>(stepclock::monotonic_ns() - start) / kRegions;
}

double regions_ns(std::uint16_t name, int step) {
  const std::int64_t start = stepclock::monotonic_ns();
  for (int i = 0; i < kRegions; ++i) {
    const stepclock_region r =
        stepclock_begin(STEPCLOCK_COMPUTE, name, stepclock_ids{step, i & 7, i & 31, -1, 0});
    stepclock_end(r);
  }
  return static_cast<double>(stepclock::monotonic_ns() - start) / kRegions;
}

// The same recording code on a small buffer reused over and over, so its slots stay in cache:
// the instruction cost of a region without the memory traffic of filling a large buffer.
double cached_regions_ns(stepclock::EventBuffer& buffer, const stepclock::RawClock& clock) {
  const std::int64_t start = stepclock::monotonic_ns();
  for (int i = 0; i < kRegions; ++i) {
    if ((i & 1023) == 0) buffer.reset();
    const std::int64_t slot = buffer.begin(
        stepclock::RegionIds{stepclock::EventKind::kCompute, 0, 1, i & 7, i & 31, -1, 0},
        clock.now());
    buffer.end(slot, clock.now());
  }
  return static_cast<double>(stepclock::monotonic_ns() - start) / kRegions;
}

}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (stepclock_init(MPI_COMM_WORLD, static_cast<std::int64_t>(kRegions) * kRepetitions + 16) !=
      0) {
    std::fprintf(stderr, "bench_stepclock: %s\n", stepclock_last_error());
    return 1;
  }
  const std::uint16_t name = stepclock_name("gemm.fwd");
  bare_reads_ns_per_pair();  // warm the vDSO page and caches

  double best_pair = 1e30;
  double best_region = 1e30;
  double best_cached = 1e30;
  stepclock::EventBuffer cached(0, 1024);
  const stepclock::RawClock clock;
  long allocations = 0;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    best_pair = std::min(best_pair, bare_reads_ns_per_pair());
    const long before = g_allocations.load();
    best_region = std::min(best_region, regions_ns(name, rep));
    allocations += g_allocations.load() - before;
    best_cached = std::min(best_cached, cached_regions_ns(cached, clock));
  }
  const double read = best_pair / 2;
  std::printf("stepclock event cost (best of %d x %d, this machine)\n", kRepetitions, kRegions);
  std::printf("  bare clock read (CLOCK_MONOTONIC):      %7.1f ns\n", read);
  std::printf("  two bare reads (what a region needs):   %7.1f ns\n", best_pair);
  std::printf("  recorded region (begin + end, C API):   %7.1f ns\n", best_region);
  std::printf("  region / two bare reads:                %7.2f x  (goal <= 1.5)\n",
              best_region / best_pair);
  std::printf("  region / one bare read:                 %7.2f x\n", best_region / read);
  std::printf("  region, slots in cache (buffer reused): %7.1f ns  (%.2f x two bare reads)\n",
              best_cached, best_cached / best_pair);
  std::printf("  heap allocations while recording:       %7ld  (over %d regions)\n", allocations,
              kRepetitions * kRegions);
  std::printf("  events dropped:                         %7lld\n",
              static_cast<long long>(stepclock_dropped()));
  stepclock_finalize();
  MPI_Finalize();
  return 0;
}
