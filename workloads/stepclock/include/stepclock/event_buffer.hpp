#pragma once
// A preallocated per-rank event buffer. Recording a region reserves one slot (an atomic
// counter, so a communication thread may record too) and writes into it: no allocation, no
// lock and no I/O while the application runs. A full buffer drops events and counts them.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "stepclock/runfile.hpp"

namespace stepclock {

struct RegionIds {
  EventKind kind = EventKind::kCompute;
  std::uint16_t name = 0;
  std::int32_t step = -1;
  std::int32_t microbatch = -1;
  std::int32_t layer = -1;
  std::int32_t seq = -1;
  std::int64_t bytes = 0;
};

// Puts `rank` and the identifiers of `ids` on `e`; its times (and device, stream) stay.
inline void set_ids(EventRecord& e, std::int32_t rank, const RegionIds& ids) {
  e.bytes = ids.bytes;
  e.rank = rank;
  e.step = ids.step;
  e.microbatch = ids.microbatch;
  e.layer = ids.layer;
  e.seq = ids.seq;
  e.name = ids.name;
  e.kind = ids.kind;
}

class EventBuffer {
 public:
  static constexpr std::int64_t kDropped = -1;
  static constexpr int kPrefetchAhead = 8;

  // kPrefetchAhead spare slots keep the prefetch inside the allocation.
  EventBuffer(std::int32_t rank, std::size_t capacity)
      : rank_(rank),
        slots_(capacity + kPrefetchAhead),
        capacity_(static_cast<std::int64_t>(capacity)) {}

  // Reserves a slot and stamps its begin time; returns the slot or kDropped when full.
  std::int64_t begin(const RegionIds& ids, std::int64_t begin_ns) {
    const std::int64_t slot = reserve();
    if (slot == kDropped) return kDropped;
    EventRecord& e = slots_[static_cast<std::size_t>(slot)];
    // Slots are written once, in order: fetch a later one for writing so that recording
    // does not stall on a cache miss when regions come in quick succession.
    __builtin_prefetch(&e + kPrefetchAhead, 1, 0);
    e.begin_ns = begin_ns;
    e.end_ns = begin_ns;
    set_ids(e, rank_, ids);
    return slot;
  }

  void end(std::int64_t slot, std::int64_t end_ns) {
    if (slot >= 0) slots_[static_cast<std::size_t>(slot)].end_ns = end_ns;
  }

  // An event timed elsewhere (e.g. GPU events mapped onto the host clock).
  bool record(const EventRecord& event) {
    const std::int64_t slot = reserve();
    if (slot == kDropped) return false;
    EventRecord& e = slots_[static_cast<std::size_t>(slot)];
    e = event;
    e.rank = rank_;
    return true;
  }

  // Forgets every event, keeping the memory (nothing may be recording concurrently).
  void reset() {
    next_.store(0, std::memory_order_relaxed);
    dropped_.store(0, std::memory_order_relaxed);
  }

  std::size_t size() const {
    const std::int64_t used = next_.load(std::memory_order_acquire);
    return static_cast<std::size_t>(std::min<std::int64_t>(used, capacity()));
  }
  std::int64_t capacity() const { return capacity_; }
  std::int64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  const EventRecord* data() const { return slots_.data(); }

 private:
  std::int64_t reserve() {
    const std::int64_t slot = next_.fetch_add(1, std::memory_order_relaxed);
    if (slot >= capacity()) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return kDropped;
    }
    return slot;
  }

  std::int32_t rank_;
  std::vector<EventRecord> slots_;
  std::int64_t capacity_;
  std::atomic<std::int64_t> next_{0};
  std::atomic<std::int64_t> dropped_{0};
};

}  // namespace stepclock
