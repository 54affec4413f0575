// FLOPs of a GEMM operator from the shapes the profiler recorded (record_shapes=True):
// 2 x M x N x K per matrix product (a multiply and an add), times the batch.
#include <array>
#include <string_view>

#include "raw_event.hpp"

namespace culprit::importers {
namespace {

constexpr std::array<std::string_view, 8> kGemmOps = {
    "aten::mm",     "aten::addmm",  "aten::bmm",        "aten::baddbmm",
    "aten::matmul", "aten::linear", "aten::_scaled_mm", "aten::addmm_"};

double product(const RawEvent::Shapes& s, int input, int from, int to) {
  double p = 1;
  for (int d = from; d < to; ++d) p *= static_cast<double>(s.dims[input][d]);
  return p;
}

// A x B with A [..., M, K] and B [..., K, N] (batch dims of A): 2 M N K x batch; -1 when the
// inner dimensions disagree.
double matmul(const RawEvent::Shapes& s, int a, int b) {
  const int ra = s.rank[a], rb = s.rank[b];
  if (ra < 2 || rb < 2) return -1;
  const double k = static_cast<double>(s.dims[a][ra - 1]);
  if (s.dims[b][rb - 2] != s.dims[a][ra - 1]) return -1;
  const double m = static_cast<double>(s.dims[a][ra - 2]);
  const double n = static_cast<double>(s.dims[b][rb - 1]);
  return 2.0 * m * n * k * product(s, a, 0, ra - 2);
}

}  // namespace

bool is_gemm_operator(std::string_view name) {
  if (name.size() < 8 || name.substr(0, 6) != "aten::") return false;
  for (std::string_view op : kGemmOps) {
    if (name == op) return true;
  }
  return false;
}

double gemm_flops(std::string_view name, const RawEvent::Shapes& s) {
  if (name == "aten::addmm" || name == "aten::addmm_" || name == "aten::baddbmm")
    return s.inputs >= 3 ? matmul(s, 1, 2) : -1;  // (bias, A, B)
  if (name == "aten::linear") {
    // input [..., K] x weight [N, K]^T
    if (s.inputs < 2 || s.rank[0] < 1 || s.rank[1] != 2) return -1;
    const int r = s.rank[0];
    if (s.dims[1][1] != s.dims[0][r - 1]) return -1;
    return 2.0 * product(s, 0, 0, r) * static_cast<double>(s.dims[1][0]);
  }
  if (s.inputs >= 2 && is_gemm_operator(name)) return matmul(s, 0, 1);
  return -1;
}

}  // namespace culprit::importers
