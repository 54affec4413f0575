// Records from PyTorch profiler events (Kineto and legacy): what each event is for the
// mapping rules (records -> rows happen in importers/common).
#include <cmath>
#include <limits>

#include "culprit/errors.hpp"
#include "culprit/importers/kineto.hpp"
#include "culprit/importers/mapping.hpp"
#include "culprit/importers/ranks.hpp"
#include "kineto_tokenizer.hpp"
#include "legacy_tokenizer.hpp"

namespace culprit::importers {
namespace {

std::uint8_t dtype_bytes(std::string_view t) {
  if (t == "float" || t == "Float" || t == "int" || t == "Int" || t == "float32") return 4;
  if (t == "double" || t == "Double" || t == "long int" || t == "Long" || t == "int64" ||
      t == "c10::complex<float>")
    return 8;
  if (t == "c10::Half" || t == "Half" || t == "half" || t == "c10::BFloat16" || t == "BFloat16" ||
      t == "short int" || t == "float16" || t == "bfloat16")
    return 2;
  if (t == "signed char" || t == "unsigned char" || t == "bool" || t == "Byte" || t == "Char" ||
      t == "int8" || t == "uint8")
    return 1;
  return 0;
}

// Legacy traces carry no category: an operator has a namespace ("aten::mm") or is an
// autograd node; every other name is a record_function label.
RecordKind legacy_kind(std::string_view name) {
  if (name.substr(0, 5) == "gloo:") return RecordKind::kCollectiveWork;
  return looks_like_operator(name) ? RecordKind::kOp : RecordKind::kLabel;
}

RecordKind kineto_kind(std::string_view cat, std::string_view name, bool& on_device) {
  on_device = false;
  if (cat == "user_annotation")
    return name.substr(0, 5) == "gloo:" ? RecordKind::kCollectiveWork : RecordKind::kLabel;
  if (cat == "cpu_op" || cat == "python_function" || cat == "operator") return RecordKind::kOp;
  if (cat == "kernel") {
    on_device = true;
    return RecordKind::kKernel;  // or a collective's: the kernel table tells (add_record)
  }
  if (cat == "cuda_runtime" || cat == "cuda_driver") return RecordKind::kRuntime;
  if (cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "gpu_user_annotation") {
    on_device = true;
    return RecordKind::kOther;
  }
  return RecordKind::kOther;
}

void add_record(RankTrace& t, const RawEvent& e, RecordKind kind, bool on_device,
                KernelClasses* kernels = nullptr) {
  if (e.dur_ns < 0) {
    throw UsageError(t.file + ": byte offset " + std::to_string(e.offset) + ": event '" +
                     std::string(e.name) + "' has a negative duration");
  }
  TraceRecord r;
  r.begin_ns = e.ts_ns;
  if (__builtin_add_overflow(e.ts_ns, e.dur_ns, &r.end_ns)) {
    throw UsageError(t.file + ": byte offset " + std::to_string(e.offset) + ": event '" +
                     std::string(e.name) + "' ends beyond the representable time");
  }
  r.name = t.names.intern(e.name);
  if (kernels && kind == RecordKind::kKernel &&
      kernels->of(t.names, r.name).kind == KernelClass::kCollective)
    kind = RecordKind::kCollectiveWork;
  r.kind = kind;
  r.on_device = on_device;
  r.thread = on_device && e.stream >= 0 ? e.stream : e.tid;
  r.device = static_cast<std::int16_t>(on_device ? (e.device >= 0 ? e.device : e.pid) : -1);
  r.numel = e.numel;
  r.elem_bytes = dtype_bytes(e.dtype);
  r.seq = e.seq;
  r.correlation = e.correlation;
  if (!e.group.empty()) r.group = static_cast<std::int32_t>(t.names.intern(e.group));
  if (kind == RecordKind::kOp && e.shapes.inputs > 0) {
    const double flops = gemm_flops(e.name, e.shapes);
    if (flops > 0 && std::isfinite(flops))
      t.op_flops.emplace_back(static_cast<std::uint32_t>(t.records.size()), flops);
  }
  t.records.push_back(r);
}

}  // namespace

namespace {

// distributedInfo's rank and world size as a job can have them; a damaged or hand-edited file
// otherwise became a rank of a 2-billion-rank job, or (a negative rank) was read as saying none.
void check_distributed_info(const KinetoHeader& h, const std::string& file) {
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  if (h.rank && (*h.rank < 0 || *h.rank >= kMax)) {
    throw UsageError(file + ": distributedInfo.rank is " + std::to_string(*h.rank) +
                     ": a rank is 0 or more and below " + std::to_string(kMax) +
                     " (the file is damaged or was edited: profile the rank again)");
  }
  if (h.world_size && (*h.world_size < 1 || *h.world_size > kMax)) {
    throw UsageError(file + ": distributedInfo.world_size is " + std::to_string(*h.world_size) +
                     ": a job has 1 to " + std::to_string(kMax) +
                     " ranks (the file is damaged or was edited: profile the rank again)");
  }
  if (h.rank && h.world_size && *h.rank >= *h.world_size) {
    throw UsageError(file + ": distributedInfo.rank " + std::to_string(*h.rank) +
                     " is not below its world_size " + std::to_string(*h.world_size) +
                     " (the file is damaged or was edited: profile the rank again)");
  }
}

}  // namespace

RankTrace parse_kineto(const std::string& bytes, const std::string& file) {
  RankTrace t;
  t.file = file;
  t.format = "kineto";
  // simdjson reads up to SIMDJSON_PADDING (64) bytes past the text: use the caller's buffer
  // when it has the room (read_input leaves it), else a padded copy.
  std::string copy;
  const std::string* padded = &bytes;
  if (bytes.capacity() < bytes.size() + 64) {
    copy.reserve(bytes.size() + 64);
    copy = bytes;
    padded = &copy;
  }
  const KinetoHeader h = tokenize_kineto(*padded, bytes.size(), file, [&](const RawEvent& e) {
    ++t.events_read;
    if (e.ph != "X" || !e.has_ts) return;
    bool on_device = false;
    const RecordKind kind = kineto_kind(e.cat, e.name, on_device);
    if (kind == RecordKind::kOther && !on_device) return;
    add_record(t, e, kind, on_device, &t.kernel_classes);
  });
  if (!h.has_trace_events) {
    throw UsageError(file +
                     ": not a Kineto trace: no \"traceEvents\" array (is it another "
                     "JSON file?)");
  }
  if (h.has_base_time) {
    // ts relative to baseTimeNanoseconds: integer ns added to the integer base, exactly.
    for (TraceRecord& r : t.records) {
      if (__builtin_add_overflow(r.begin_ns, h.base_time_ns, &r.begin_ns) ||
          __builtin_add_overflow(r.end_ns, h.base_time_ns, &r.end_ns)) {
        throw UsageError(file + ": baseTimeNanoseconds + ts is beyond the representable time");
      }
    }
  }
  check_distributed_info(h, file);
  t.rank = h.rank ? static_cast<int>(*h.rank) : -1;
  t.world_size = h.world_size ? static_cast<int>(*h.world_size) : -1;
  t.backend = h.backend;
  t.group_ranks = h.group_ranks;
  t.rank_source = "distributedInfo";
  if (t.rank < 0) {
    t.rank = rank_from_file_name(file);
    t.rank_source = "file name";
    if (t.rank >= 0)
      t.warnings.push_back(file + ": no distributedInfo.rank: rank " + std::to_string(t.rank) +
                           " taken from the file name");
  }
  return t;
}

RankTrace parse_legacy(const std::string& bytes, const std::string& file) {
  RankTrace t;
  t.file = file;
  t.format = "legacy";
  t.events_read = tokenize_legacy(bytes, file, [&](const RawEvent& e) {
    if (e.ph != "X" || !e.has_ts) return;
    add_record(t, e, legacy_kind(e.name), false);
  });
  t.rank = rank_from_file_name(file);
  t.rank_source = "file name";
  if (t.rank >= 0) {
    t.warnings.push_back(file + ": the legacy format holds no rank: rank " +
                         std::to_string(t.rank) + " taken from the file name");
  }
  return t;
}

}  // namespace culprit::importers
