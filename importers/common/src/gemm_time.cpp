// GEMM kernels and their FLOPs: a GEMM kernel (the kernel table's class) takes the FLOPs of the
// innermost GEMM operator (aten::mm, addmm, ...) that launched it, from that operator's recorded
// shapes (Kineto with record_shapes). An operator launching several GEMM kernels (split-K) counts
// its FLOPs once, over the time of all of them.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "culprit/importers/mapping.hpp"

namespace culprit::importers {
namespace {

struct ShapedOp {
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t index = 0;  // into records
  double flops = 0;
};

// Per thread, the GEMM operators with FLOPs, by begin.
std::map<std::int64_t, std::vector<ShapedOp>> shaped_ops(const RankTrace& t) {
  std::map<std::int64_t, std::vector<ShapedOp>> out;
  for (const auto& [index, flops] : t.op_flops) {
    const TraceRecord& r = t.records[index];
    out[r.thread].push_back({r.begin_ns, r.end_ns, index, flops});
  }
  for (auto& [thread, ops] : out) {
    std::sort(ops.begin(), ops.end(),
              [](const ShapedOp& a, const ShapedOp& b) { return a.begin_ns < b.begin_ns; });
  }
  return out;
}

// The innermost operator of `ops` holding `t` (the latest to begin at or before it, of the few
// that may nest), nullptr when none.
const ShapedOp* innermost(const std::vector<ShapedOp>& ops, std::int64_t t) {
  auto it = std::upper_bound(ops.begin(), ops.end(), t,
                             [](std::int64_t v, const ShapedOp& o) { return v < o.begin_ns; });
  for (int back = 0; back < 8 && it != ops.begin(); ++back) {
    --it;
    if (it->end_ns >= t) return &*it;
  }
  return nullptr;
}

}  // namespace

GemmTotals gemm_totals(const RankTrace& t, const RankSteps& steps, int first_steady_step) {
  GemmTotals out;
  std::vector<const TraceRecord*> gemms;
  for (const TraceRecord& k : t.records) {
    if (k.on_device && k.kind == RecordKind::kKernel &&
        t.kernel_classes.of(t.names, k.name).kind == KernelClass::kGemm)
      gemms.push_back(&k);
  }
  if (gemms.empty()) return out;
  const auto ops = shaped_ops(t);
  std::unordered_map<std::int64_t, const TraceRecord*> launch;  // correlation -> runtime call
  for (const TraceRecord* k : gemms) launch.emplace(k->correlation, nullptr);
  for (const TraceRecord& r : t.records) {
    if (r.kind != RecordKind::kRuntime) continue;
    auto it = launch.find(r.correlation);
    if (it != launch.end()) it->second = &r;
  }
  std::erase_if(launch, [](const auto& entry) { return entry.second == nullptr; });
  std::set<std::uint32_t> counted;
  for (const TraceRecord* kernel : gemms) {
    const TraceRecord& k = *kernel;
    auto l = launch.find(k.correlation);
    const std::int64_t when = l != launch.end() ? l->second->begin_ns : k.begin_ns;
    if (step_at(steps, when) < first_steady_step) continue;
    const auto ns = static_cast<double>(k.end_ns - k.begin_ns);
    ++out.kernels;
    out.ns += ns;
    const ShapedOp* op = nullptr;
    if (l != launch.end()) {
      auto thread = ops.find(l->second->thread);
      if (thread != ops.end()) op = innermost(thread->second, when);
    }
    if (!op) {
      ++out.without_shapes;
      continue;
    }
    out.shaped_ns += ns;
    if (counted.insert(op->index).second) out.flops += op->flops;
  }
  return out;
}

}  // namespace culprit::importers
