// Records from PyTorch profiler events (Kineto and legacy): what each event is for the
// mapping rules (records -> rows happen in importers/common).
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/importers/input.hpp"
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

// A complete event (ph X) without ts or dur: read as 0 it used to drop every phase without a
// word (the step became "unclassified").
void require_span(const RawEvent& e, const std::string& file) {
  if (e.has_ts && e.has_dur) return;
  throw UsageError(file + ": byte offset " + std::to_string(e.offset) + ": event '" +
                   std::string(e.name.substr(0, 80)) + "' (ph X) has no " +
                   (e.has_ts ? "dur" : "ts") +
                   ": a complete event needs both (the file is damaged or was edited)");
}

// Duration events (ph B ... ph E on one thread, nested like a stack) as complete events: the
// begin's name, category and args, ending at the E. An E without its B, and a B never ended
// (the profiler stopped inside it), are counted and warned.
class BeginEndPairs {
 public:
  template <typename Add>
  void take(const RawEvent& e, const std::string& file, Add&& add) {
    if (!e.has_ts) {
      throw UsageError(file + ": byte offset " + std::to_string(e.offset) + ": event '" +
                       std::string(e.name.substr(0, 80)) + "' (ph " + std::string(e.ph) +
                       ") has no ts (the file is damaged or was edited)");
    }
    auto& stack = open_[{e.pid, e.tid}];
    if (e.ph == "B") {
      Open o{std::string(e.name), std::string(e.cat), std::string(e.dtype), std::string(e.group),
             e};
      stack.push_back(std::move(o));
      return;
    }
    if (stack.empty()) {
      ++unmatched_ends_;
      return;
    }
    Open o = std::move(stack.back());
    stack.pop_back();
    RawEvent x = o.event;
    x.name = o.name;
    x.cat = o.cat;
    x.dtype = o.dtype;
    x.group = o.group;
    x.ph = "X";
    x.dur_ns = e.ts_ns - o.event.ts_ns;
    x.has_dur = true;
    add(x);
  }

  void finish(const std::string& file, std::vector<std::string>& warnings) const {
    std::size_t unended = 0;
    for (const auto& [thread, stack] : open_) unended += stack.size();
    if (unended + unmatched_ends_ == 0) return;
    warnings.push_back(file + ": " + std::to_string(unended) +
                       " duration event(s) (ph B) never "
                       "ended and " +
                       std::to_string(unmatched_ends_) +
                       " end(s) (ph E) without a begin: left out");
  }

 private:
  struct Open {
    std::string name, cat, dtype, group;
    RawEvent event;  // its views are replaced by the strings above when it ends
  };
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Open>> open_;
  std::size_t unmatched_ends_ = 0;
};

}  // namespace

namespace {

// distributedInfo's rank and world size as a job can have them; a damaged or hand-edited file
// otherwise became a rank of a 2-billion-rank job, or (a negative rank) was read as saying none.
void check_distributed_info(const KinetoHeader& h, const std::string& file) {
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  for (const auto& [key, bad] :
       {std::pair{"rank", &h.bad_rank}, {"world_size", &h.bad_world_size}}) {
    if (!bad->empty()) {
      throw UsageError(file + ": distributedInfo." + key + " is " + *bad +
                       ": not a whole number (the file is damaged or was edited: write the " + key +
                       " as an integer, or profile the rank again)");
    }
  }
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
  // Room for every record the text can hold (a kept event is at least ~100 bytes of libkineto
  // JSON): reserved pages that stay unused are never touched, so they cost no memory, and the
  // records are never copied by the vector's growth (which held 1.5x of them at its peak).
  t.records.reserve(bytes.size() / 96);
  BeginEndPairs pairs;
  auto add = [&](const RawEvent& e) {
    bool on_device = false;
    const RecordKind kind = kineto_kind(e.cat, e.name, on_device);
    if (kind == RecordKind::kOther && !on_device) return;
    if (!on_device && t.process < 0 && e.pid > 0) t.process = e.pid << 24;  // globalPid layout
    add_record(t, e, kind, on_device, &t.kernel_classes);
  };
  const KinetoHeader h = tokenize_kineto(*padded, bytes.size(), file, [&](const RawEvent& e) {
    ++t.events_read;
    if (e.ph == "X") {
      require_span(e, file);
      add(e);
    } else if (e.ph == "B" || e.ph == "E") {
      pairs.take(e, file, add);
    }
  });
  pairs.finish(file, t.warnings);
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
  if (t.rank >= 0) {
    // Both say a rank: the file's own header wins over its name, said when they disagree.
    int named = -1;
    try {
      named = rank_from_file_name(file);
    } catch (const UsageError&) {  // a name beyond any rank says nothing here
    }
    if (named >= 0 && named != t.rank) {
      t.warnings.push_back(file + ": the file name says rank " + std::to_string(named) +
                           " but distributedInfo.rank is " + std::to_string(t.rank) +
                           ": distributedInfo wins (rank " + std::to_string(t.rank) +
                           "); rename the file if it is right");
    }
  }
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
  // torch's legacy writer copies names byte for byte: a label in another encoding is not UTF-8,
  // and every document culprit writes from it would not be either (a Perfetto export). Such a
  // name is read with U+FFFD for each bad byte, and the first offset is said.
  const bool valid = first_invalid_utf8(bytes) == std::string::npos;
  std::size_t bad_names = 0, first_bad = 0;
  std::string fixed;
  t.events_read = tokenize_legacy(bytes, file, [&](const RawEvent& e) {
    if (e.ph != "X") return;
    require_span(e, file);
    const std::size_t at = valid ? std::string::npos : first_invalid_utf8(e.name);
    if (at == std::string::npos) return add_record(t, e, legacy_kind(e.name), false);
    if (bad_names++ == 0) first_bad = static_cast<std::size_t>(e.name.data() - bytes.data()) + at;
    fixed = replace_invalid_utf8(e.name);
    RawEvent copy = e;
    copy.name = fixed;
    add_record(t, copy, legacy_kind(copy.name), false);
  });
  if (bad_names > 0) {
    t.warnings.push_back(file + ": byte offset " + std::to_string(first_bad) + ": " +
                         std::to_string(bad_names) +
                         " event name(s) are not valid UTF-8: each bad byte is read as U+FFFD");
  }
  t.rank = rank_from_file_name(file);
  t.rank_source = "file name";
  if (t.rank >= 0) {
    t.warnings.push_back(file + ": the legacy format holds no rank: rank " +
                         std::to_string(t.rank) + " taken from the file name");
  }
  return t;
}

}  // namespace culprit::importers
