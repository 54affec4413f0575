// The kernel table (docs/importers.md, "Kernel classes"): the first rule that matches a kernel's
// name gives its class; names no rule knows are kOther.
#include "culprit/common/kernels.hpp"

#include <array>
#include <cctype>
#include <string>

#include "culprit/common/lookup.hpp"

namespace culprit {
namespace {

// Where a rule looks: the function's own identifier, the qualified name outside template
// arguments and parameters ("void cutlass::Kernel", never "...<cutlass::bfloat16_t>"), both
// lower-cased, or the whole name as written.
enum class Field { kBase, kOuter, kWhole };
enum class Match { kPrefix, kContains };

struct Rule {
  Field field;
  Match match;
  std::string_view text;  // lower-case (kBase, kOuter) or as written (kWhole)
  KernelClass kind;
  const char* library;
  CollectiveOp op = CollectiveOp::kNone;  // a collective's operation; kNone: from its name
};

// Order matters: collectives and attention before the GEMM rules ("fmha" kernels hold "gemm"
// words in their templates; "flash::" kernels live in CUTLASS namespaces).
constexpr std::array<Rule, 21> kRules = {{
    {Field::kBase, Match::kPrefix, "nccldevkernel", KernelClass::kCollective, "NCCL/RCCL"},
    {Field::kBase, Match::kPrefix, "ncclkernel", KernelClass::kCollective, "NCCL/RCCL"},
    {Field::kBase, Match::kPrefix, "multimem_", KernelClass::kCollective, "symmetric memory"},
    {Field::kBase, Match::kContains, "one_shot_all_reduce", KernelClass::kCollective, "custom"},
    {Field::kBase, Match::kContains, "two_shot_all_reduce", KernelClass::kCollective, "custom"},
    {Field::kBase, Match::kContains, "oneshotallreduce", KernelClass::kCollective, "custom"},
    {Field::kBase, Match::kContains, "twoshotallreduce", KernelClass::kCollective, "custom"},
    {Field::kBase, Match::kPrefix, "cross_device_reduce", KernelClass::kCollective, "vLLM custom",
     CollectiveOp::kAllReduce},
    {Field::kBase, Match::kPrefix, "flash_fwd", KernelClass::kAttention, "FlashAttention"},
    {Field::kBase, Match::kPrefix, "flash_bwd", KernelClass::kAttention, "FlashAttention"},
    {Field::kWhole, Match::kContains, "flash::", KernelClass::kAttention, "FlashAttention"},
    {Field::kBase, Match::kContains, "fmha", KernelClass::kAttention, "fused MHA"},
    {Field::kBase, Match::kContains, "attention", KernelClass::kAttention, ""},
    {Field::kBase, Match::kPrefix, "nvjet_", KernelClass::kGemm, "cuBLASLt"},
    {Field::kBase, Match::kContains, "_xmma_", KernelClass::kGemm, "cuBLAS"},
    {Field::kOuter, Match::kContains, "cutlass", KernelClass::kGemm, "CUTLASS"},
    {Field::kBase, Match::kPrefix, "cijk_", KernelClass::kGemm, "rocBLAS/hipBLASLt"},
    {Field::kBase, Match::kPrefix, "bmm_", KernelClass::kGemm, "TensorRT-LLM"},
    {Field::kBase, Match::kContains, "gemm", KernelClass::kGemm, ""},
    {Field::kBase, Match::kPrefix, "memcpy", KernelClass::kMemcpy, ""},
    {Field::kBase, Match::kPrefix, "memset", KernelClass::kMemset, ""},
}};

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

// Lower-case letters and digits only: "ncclDevKernel_AllGather_RING" ->
// "nccldevkernelallgatherring".
std::string letters(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out += static_cast<char>(std::tolower(u));
  }
  return out;
}

constexpr std::string_view kAnonymous = "(anonymous namespace)";

// The end of the qualified name: the first '(' outside template arguments that is not
// "(anonymous namespace)"; calls `outer` with every character outside template arguments.
template <class OnOuter>
std::size_t qualified_end(std::string_view name, OnOuter&& outer) {
  std::string stack;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '(' && name.substr(i, kAnonymous.size()) == kAnonymous) {
      i += kAnonymous.size() - 1;
      continue;
    }
    if (c == '(' && stack.empty()) return i;
    if (c == '<' || c == '(') {
      stack += c;
    } else if (c == ')' && !stack.empty() && stack.back() == '(') {
      stack.pop_back();
    } else if (c == '>' && !stack.empty() && stack.back() == '<') {
      stack.pop_back();
      continue;
    } else if (stack.empty()) {
      outer(i);
    }
  }
  return name.size();
}

std::string outer_text(std::string_view name) {
  std::string out;
  out.reserve(64);
  qualified_end(name, [&](std::size_t i) { out += ascii_lower(name[i]); });
  return out;
}

bool matches(const Rule& r, std::string_view base, std::string_view outer, std::string_view whole) {
  const std::string_view field =
      r.field == Field::kBase ? base : (r.field == Field::kOuter ? outer : whole);
  if (r.match == Match::kPrefix) return field.substr(0, r.text.size()) == r.text;
  return field.find(r.text) != std::string_view::npos;
}

constexpr LookupEntry<KernelClass, const char*> kClassNames[] = {
    {KernelClass::kGemm, "gemm"},
    {KernelClass::kAttention, "attention"},
    {KernelClass::kCollective, "collective"},
    {KernelClass::kMemcpy, "memcpy"},
    {KernelClass::kMemset, "memset"},
    {KernelClass::kOther, "other"}};

constexpr LookupEntry<CollectiveOp, const char*> kOpNames[] = {
    {CollectiveOp::kNone, ""},
    {CollectiveOp::kAllReduce, "all_reduce"},
    {CollectiveOp::kAllGather, "all_gather"},
    {CollectiveOp::kReduceScatter, "reduce_scatter"},
    {CollectiveOp::kAllToAll, "all_to_all"},
    {CollectiveOp::kBroadcast, "broadcast"},
    {CollectiveOp::kReduce, "reduce"},
    {CollectiveOp::kSendRecv, "send_recv"},
    {CollectiveOp::kBarrier, "barrier"},
    {CollectiveOp::kGather, "gather"},
    {CollectiveOp::kScatter, "scatter"},
    {CollectiveOp::kOtherCollective, "collective"}};

// The operation words, checked in this order ("reducescatter" before "scatter" and "reduce").
constexpr std::array<std::pair<std::string_view, CollectiveOp>, 13> kOpWords = {{
    {"reducescatter", CollectiveOp::kReduceScatter},
    {"allreduce", CollectiveOp::kAllReduce},
    {"allgather", CollectiveOp::kAllGather},
    {"alltoall", CollectiveOp::kAllToAll},
    {"sendrecv", CollectiveOp::kSendRecv},
    {"broadcast", CollectiveOp::kBroadcast},
    {"bcast", CollectiveOp::kBroadcast},
    {"barrier", CollectiveOp::kBarrier},
    {"reduce", CollectiveOp::kReduce},
    {"gather", CollectiveOp::kGather},
    {"scatter", CollectiveOp::kScatter},
    {"send", CollectiveOp::kSendRecv},
    {"recv", CollectiveOp::kSendRecv},
}};

}  // namespace

std::string_view kernel_base_name(std::string_view name) {
  std::size_t last_sep = 0;  // just past the last top-level " " or "::"
  const std::size_t end = qualified_end(name, [&](std::size_t i) {
    if (name[i] == ' ' || name[i] == ':') last_sep = i + 1;
  });
  std::string_view base = name.substr(last_sep, end - last_sep);
  const std::size_t templ = base.find('<');
  if (templ != std::string_view::npos) base = base.substr(0, templ);
  return base.empty() ? name.substr(0, end) : base;
}

CollectiveOp collective_op_from_name(std::string_view name) {
  const std::string s = letters(name);
  for (const auto& [word, op] : kOpWords) {
    if (s.find(word) != std::string::npos) return op;
  }
  return CollectiveOp::kNone;
}

KernelKind classify_kernel(std::string_view name) {
  const std::string base = lower(kernel_base_name(name));
  const std::string outer = outer_text(name);
  for (const Rule& r : kRules) {
    if (!matches(r, base, outer, name)) continue;
    KernelKind k{r.kind, r.op, r.library};
    if (r.kind == KernelClass::kCollective && k.op == CollectiveOp::kNone) {
      k.op = collective_op_from_name(base);
      if (k.op == CollectiveOp::kNone) k.op = CollectiveOp::kOtherCollective;
    }
    return k;
  }
  return {};
}

const char* kernel_class_name(KernelClass kind) {
  return lookup(kClassNames, kind, static_cast<const char*>("other"));
}

const char* collective_op_name(CollectiveOp op) {
  return lookup(kOpNames, op, static_cast<const char*>(""));
}

double bus_factor(CollectiveOp op, int n) {
  if (n < 1) return 0.0;
  const double ranks = n;
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2.0 * (ranks - 1) / ranks;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll:
    case CollectiveOp::kGather:
    case CollectiveOp::kScatter:
      return (ranks - 1) / ranks;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSendRecv:
      return 1.0;
    default:
      return 0.0;
  }
}

}  // namespace culprit
