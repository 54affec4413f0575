#pragma once
// What a GPU kernel or a collective is, from its name as current libraries write it: the one
// table (kernels.cpp) that the importers (Kineto and nsys) and the analysis (GEMM time, bus
// factors per collective operation) read. Unknown names are kOther and keep their names.

#include <string_view>

namespace culprit {

enum class KernelClass { kGemm, kAttention, kCollective, kMemcpy, kMemset, kOther };

// The operation of a collective (kernel, CPU call or NVTX range), kNone when the name is none.
enum class CollectiveOp {
  kNone,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kReduce,
  kSendRecv,  // point-to-point (NCCL SendRecv, send, recv)
  kBarrier,
  kGather,
  kScatter,
  kOtherCollective,  // a collective whose operation the name does not say (ncclDevKernel_Generic)
};

struct KernelKind {
  KernelClass kind = KernelClass::kOther;
  CollectiveOp op = CollectiveOp::kNone;
  const char* library = "";  // "cuBLAS", "cuBLASLt", "CUTLASS", "NCCL", ... ("" when unknown)
};

// A device kernel's class from its (demangled or short) name.
KernelKind classify_kernel(std::string_view name);

// The operation a collective's name says ("c10d::allreduce_", "nccl:_all_gather_base",
// "MPI_Allreduce", "gloo:all_reduce", "ncclDevKernel_AllGather_RING_LL",
// "multimem_all_reduce_kernel"); kNone for a name that holds no collective operation word.
CollectiveOp collective_op_from_name(std::string_view name);

// The function's own identifier in a demangled name: "void (anonymous namespace)::
// multimem_all_reduce_kernel<c10::BFloat16, 16>(...)" -> "multimem_all_reduce_kernel";
// "nvjet_tst_64x64_..." -> itself. Empty only for an empty name.
std::string_view kernel_base_name(std::string_view name);

const char* kernel_class_name(KernelClass kind);  // "gemm", "attention", ...
const char* collective_op_name(CollectiveOp op);  // "all_reduce", ... ("" for kNone)

// nccl-tests' bus bandwidth factor of `op` among `n` ranks (busbw = algbw x factor): all-reduce
// 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce, point-to-point 1;
// 0 (no bus figure) for a barrier, an unknown operation or n < 1.
double bus_factor(CollectiveOp op, int n);

}  // namespace culprit
