#pragma once
// Cuts a rank's timeline into steps by the version's step rule (docs/pmpi.md): every `every`-th
// call of the rule's call on MPI_COMM_WORLD is a boundary. Step s runs from boundary s to
// boundary s + 1; what comes before the first boundary is step -1. Only steps below `kept`
// (warm-up + measured) get a step event; later ones are numbered but unused. Pure: no MPI.

#include <cstdint>

namespace culprit::pmpi {

class StepCounter {
 public:
  StepCounter(int every, int kept_steps) : every_(every < 1 ? 1 : every), kept_(kept_steps) {}

  // One call of the rule's call; true when it is a boundary.
  bool count() {
    if (++calls_ < every_) return false;
    calls_ = 0;
    return true;
  }

  struct Closed {
    bool has_step = false;  // a kept step ended at this boundary
    std::int32_t step = -1;
    std::int64_t begin_ns = 0;
  };

  // A boundary at `t_ns`: ends the current step and begins the next.
  Closed boundary(std::int64_t t_ns) {
    Closed closed{kept(step_), step_, begin_ns_};
    ++step_;
    begin_ns_ = t_ns;
    return closed;
  }

  std::int32_t step() const { return step_; }
  bool kept(std::int32_t step) const { return step >= 0 && step < kept_; }

 private:
  int every_;
  int kept_;
  int calls_ = 0;
  std::int32_t step_ = -1;
  std::int64_t begin_ns_ = 0;
};

}  // namespace culprit::pmpi
