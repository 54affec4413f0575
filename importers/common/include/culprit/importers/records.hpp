#pragma once
// What a tokenizer hands the mapping rules: one rank's trace as flat records (bytes -> records).
// Timestamps are integer nanoseconds on the rank's own raw clock, exactly as read (fractional
// microseconds are converted digit by digit, never through an addition in double).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "culprit/common/kernels.hpp"

namespace culprit::importers {

// Torch's traces write integer microseconds (legacy, Kineto v1): two of their timestamps closer
// than this cannot be told apart.
inline constexpr std::int64_t kTorchTimestampResolution_ns = 1000;

enum class RecordKind : std::uint8_t {
  kOp,              // a CPU operator (cpu_op, aten::..., autograd nodes)
  kLabel,           // a region the user (or torch) named: record_function, NVTX range
  kCollectiveWork,  // a collective's execution on a worker thread (gloo:*) or device (NCCL kernel)
  kKernel,          // a GPU kernel that is not a collective
  kRuntime,         // a CUDA runtime call (launches; correlation links it to its kernel)
  kOther,           // memcpy, memset, anything kept only for counting
};

struct TraceRecord {
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t thread = 0;        // tid of a CPU record; stream of a device record
  std::int64_t numel = -1;        // element count of a collective, -1 when the trace has none
  std::int64_t seq = -1;          // the trace's own collective sequence number, -1 when none
  std::int64_t correlation = -1;  // runtime <-> kernel correlation id, -1 when none
  std::uint32_t name = 0;         // index into RankTrace::names
  std::int32_t group = -1;        // process group (index into names), -1 when unknown
  std::int16_t device = -1;       // GPU index of a device record
  std::uint8_t elem_bytes = 0;    // element size of a collective's dtype, 0 when unknown
  RecordKind kind = RecordKind::kOp;
  bool on_device = false;
};

// Interns names so that records stay small; index 0 is always the empty name.
class NameTable {
 public:
  NameTable() { intern(""); }
  std::uint32_t intern(std::string_view name);
  const std::string& operator[](std::uint32_t id) const { return names_[id]; }
  std::size_t size() const { return names_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index_;
};

// The kernel table's verdict on a rank's names (culprit/common/kernels.hpp), each name
// classified once.
class KernelClasses {
 public:
  const KernelKind& of(const NameTable& names, std::uint32_t name) const;

 private:
  mutable std::vector<char> known_;
  mutable std::vector<KernelKind> kinds_;
};

// How the ranks inside one file are told apart (--rank-by): a process each (globalPid), a
// device each, or a process each unless one process drives several devices (then a device each).
enum class RankBy : std::uint8_t { kAuto, kProcess, kDevice };

// A rank the file itself says for one of its processes, and where it said so.
struct ProcessRank {
  int rank = -1;
  std::string source;  // "process environment RANK", "NVTX mark 'MPI Rank'"
};

// One file's worth of one rank (a file holding several ranks is split into one each).
struct RankTrace {
  std::string file;         // the path as given
  std::string format;       // "kineto", "legacy", "nsys"
  int rank = -1;            // the job's rank of this file
  std::string rank_source;  // "distributedInfo", "file name", "--rank order"
  int world_size = -1;      // -1 when the file does not say
  std::string backend;      // "gloo", "nccl", "" when unknown
  std::string host;         // "" when unknown
  // Process group name -> its global ranks (Kineto's distributedInfo.pg_config); a group not
  // listed (or a trace without it) is taken as the whole job.
  std::map<std::string, std::vector<int>> group_ranks;
  std::int64_t events_read = 0;  // trace events seen in the file (all phases)
  NameTable names;
  KernelClasses kernel_classes;  // of `names`, each classified once
  std::vector<TraceRecord> records;
  std::vector<std::string> warnings;
  // Files that may hold several ranks (Nsight Systems): per record, its process (globalPid) and
  // the autograd sequence number of an emit_nvtx range (-1 none), both records.size() long, or
  // empty. An emit_nvtx range's op_id is kept in its record's `correlation`.
  std::vector<std::int64_t> record_process;
  std::vector<std::int64_t> record_seq;
  std::map<std::int64_t, ProcessRank> process_ranks;  // globalPid -> the rank it says
  // The launched process's environment or command line (nsys): its rank (applies to a 1-rank
  // file), its rank within its node, and its node's index (applies to a file of one node).
  ProcessRank launch_rank;
  ProcessRank launch_local_rank;
  ProcessRank launch_node;
  // GEMM operators whose recorded shapes give their FLOPs (Kineto with record_shapes):
  // (index into records, FLOPs), by index.
  std::vector<std::pair<std::uint32_t, double>> op_flops;
  // Ranks read from one file share its clock exactly: their clock models are not estimated.
  std::string clock_domain;
  // The rank's process (globalPid layout, rank_units.hpp) when split from a file, or the one
  // process a Kineto file is of (its CPU events' pid); else -1.
  std::int64_t process = -1;
  int device = -1;  // the rank's device when split by device, else -1
};

}  // namespace culprit::importers
