// Nsight Systems SQLite exports -> records. Read-only; every table and column read is named in
// the error when the export lacks it.
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "culprit/errors.hpp"
#include "culprit/importers/mapping.hpp"
#include "culprit/importers/nsys.hpp"
#include "culprit/importers/ranks.hpp"
#include "nccl_payload.hpp"

namespace culprit::importers {
namespace {

struct Closer {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct Finalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

class Export {
 public:
  explicit Export(const std::string& path) : path_(path) {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
    db_.reset(raw);
    if (rc != SQLITE_OK) fail("", raw ? sqlite3_errmsg(raw) : "cannot open");
  }
  [[noreturn]] void fail(const std::string& table, const std::string& what) const {
    throw UsageError(path_ + (table.empty() ? "" : ": table " + table) + ": " + what +
                     ": not a readable Nsight Systems SQLite export (re-export it with "
                     "`nsys export --type sqlite`)");
  }
  bool has_table(const std::string& name) {
    auto s = prepare("", "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
    sqlite3_bind_text(s.get(), 1, name.c_str(), -1, SQLITE_TRANSIENT);
    return step(s, "sqlite_master");
  }
  std::unique_ptr<sqlite3_stmt, Finalizer> prepare(const std::string& table,
                                                   const std::string& sql) {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
      fail(table, sqlite3_errmsg(db_.get()));
    }
    return std::unique_ptr<sqlite3_stmt, Finalizer>(raw);
  }
  bool step(const std::unique_ptr<sqlite3_stmt, Finalizer>& s, const std::string& table) {
    const int rc = sqlite3_step(s.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(table, sqlite3_errmsg(db_.get()));
  }
  // on_row(statement) for each row of `sql` over `table`, if the export has it (nsys leaves out
  // the tables of what it did not trace).
  template <class OnRow>
  void for_each_row(const std::string& table, const std::string& sql, OnRow&& on_row) {
    if (!has_table(table)) return;
    auto s = prepare(table, sql);
    while (step(s, table)) on_row(s.get());
  }

 private:
  std::string path_;
  std::unique_ptr<sqlite3, Closer> db_;
};

std::string text(sqlite3_stmt* s, int column) {
  const unsigned char* t = sqlite3_column_text(s, column);
  return t ? reinterpret_cast<const char*>(t) : "";
}

// globalTid = (hardware id << 56) | (pid << 24) | tid; globalPid = globalTid without the tid
std::int64_t tid_of(std::int64_t global_tid) {
  return global_tid & 0xFFFFFF;
}
std::int64_t process_of(std::int64_t global_tid) {
  return global_tid & ~std::int64_t{0xFFFFFF};
}

// The record of a row whose columns 0 and 1 are its start and end; counts the row as read.
TraceRecord spanned_record(sqlite3_stmt* row, RankTrace& t) {
  ++t.events_read;
  TraceRecord r;
  r.begin_ns = sqlite3_column_int64(row, 0);
  r.end_ns = sqlite3_column_int64(row, 1);
  return r;
}

void check_schema(Export& x, RankTrace& t) {
  std::string table;
  if (x.has_table("META_DATA_EXPORT")) {
    table = "META_DATA_EXPORT";
  } else if (x.has_table("EXPORT_META_DATA")) {
    table = "EXPORT_META_DATA";
  } else if (x.has_table("config_echo") && x.has_table("event_rows")) {
    // culprit's own run file (runfile/run_file.sql): a run recorded already, not a profile.
    throw UsageError(t.file +
                     ": a culprit run file (one run as its ranks wrote it), not a profiler "
                     "trace: `culprit attribute --run-file " +
                     t.file +
                     "` reads it as it is, and `culprit run` records run files in its store "
                     "itself");
  } else if (x.has_table("experiments") && x.has_table("runs")) {
    // A results store's two first tables (storage/migrations.cpp): only a hint, never read.
    throw UsageError(t.file +
                     ": a culprit store, not a profiler trace: read it with --db (`culprit runs "
                     "--db " +
                     t.file + "`), or bring its runs into another store with `culprit merge`");
  } else {
    x.fail("", "no EXPORT_META_DATA or META_DATA_EXPORT table");
  }
  auto s = x.prepare(table,
                     "SELECT value FROM " + table + " WHERE name = 'EXPORT_SCHEMA_VERSION_MAJOR'");
  if (!x.step(s, table)) x.fail(table, "no EXPORT_SCHEMA_VERSION_MAJOR");
  const std::string major = text(s.get(), 0);
  if (major != "2" && major != "3") {
    throw UsageError(t.file + ": table " + table + ": export schema version " + major +
                     " is not one this culprit reads (2.x and 3.x are): export with Nsight "
                     "Systems 2022.x to 2024.x, or report the version");
  }
  t.format = "nsys";
  t.backend = "";
}

// torch.autograd.profiler.emit_nvtx writes "aten::mul, seq = 47307, op_id = 998144" (and
// ", sizes = [[2, 3]]", ", input_op_ids = [...]" with record_shapes): the name alone, the
// numbers apart. A range without those suffixes keeps its text.
struct NvtxName {
  std::string_view name;
  std::int64_t seq = -1;
  std::int64_t op_id = -1;
};

std::int64_t number_after(std::string_view text, std::string_view key) {
  const std::size_t at = text.find(key);
  if (at == std::string_view::npos) return -1;
  std::int64_t n = 0;
  const char* first = text.data() + at + key.size();
  auto [end, ec] = std::from_chars(first, text.data() + text.size(), n);
  return ec == std::errc() && end != first ? n : -1;
}

NvtxName emit_nvtx_name(std::string_view text) {
  NvtxName n{text};
  std::size_t cut = std::string_view::npos;
  for (std::string_view key : {", seq = ", ", op_id = ", ", sizes = ["}) {
    cut = std::min(cut, text.find(key));
  }
  if (cut == std::string_view::npos || cut == 0) return n;
  n.name = text.substr(0, cut);
  const std::string_view rest = text.substr(cut);
  n.seq = number_after(rest, ", seq = ");
  n.op_id = number_after(rest, ", op_id = ");
  return n;
}

// An emit_nvtx range is an operator ("aten::mul", "AddmmBackward0") or a record_function label.
RecordKind emit_nvtx_kind(std::string_view name) {
  return looks_like_operator(name) ? RecordKind::kOp : RecordKind::kLabel;
}

// What the launched process's environment or command line says (META_DATA_CAPTURE, as `nsys
// profile` recorded it), each key list in order of preference: its rank (RANK,
// OMPI_COMM_WORLD_RANK, SLURM_PROCID, PMI_RANK, --rank=N), its rank within the node (LOCAL_RANK,
// OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, --local_rank=N, --local-rank=N) and its node's index
// (NODE_RANK, GROUP_RANK, SLURM_NODEID, --node_rank=N, --node-rank=N: torchrun's and Slurm's).
struct LaunchKey {
  std::string_view key;  // "RANK=" (environment) or "--rank=" (command line)
  ProcessRank RankTrace::*field;
};
constexpr std::array<LaunchKey, 15> kLaunchKeys = {{
    {"RANK=", &RankTrace::launch_rank},
    {"OMPI_COMM_WORLD_RANK=", &RankTrace::launch_rank},
    {"SLURM_PROCID=", &RankTrace::launch_rank},
    {"PMI_RANK=", &RankTrace::launch_rank},
    {"--rank=", &RankTrace::launch_rank},
    {"LOCAL_RANK=", &RankTrace::launch_local_rank},
    {"OMPI_COMM_WORLD_LOCAL_RANK=", &RankTrace::launch_local_rank},
    {"SLURM_LOCALID=", &RankTrace::launch_local_rank},
    {"--local_rank=", &RankTrace::launch_local_rank},
    {"--local-rank=", &RankTrace::launch_local_rank},
    {"NODE_RANK=", &RankTrace::launch_node},
    {"GROUP_RANK=", &RankTrace::launch_node},
    {"SLURM_NODEID=", &RankTrace::launch_node},
    {"--node_rank=", &RankTrace::launch_node},
    {"--node-rank=", &RankTrace::launch_node},
}};

void read_launch_environment(Export& x, RankTrace& t) {
  std::map<const void*, std::size_t> best;  // the preferred key found, per field
  x.for_each_row(
      "META_DATA_CAPTURE",
      "SELECT name, value FROM META_DATA_CAPTURE WHERE name LIKE 'PROCESS_%:%'",
      [&](sqlite3_stmt* s) {
        const std::string name = text(s, 0);
        const bool env = name.ends_with(":ENVIRONMENT_VARIABLE");
        if (!env && name.find(":ARGUMENT_") == std::string::npos) return;
        std::string value = text(s, 1);
        std::erase(value, '"');
        for (std::size_t k = 0; k < kLaunchKeys.size(); ++k) {
          const LaunchKey& key = kLaunchKeys[k];
          if (value.rfind(key.key, 0) != 0 || (env != (key.key[0] != '-'))) continue;
          const void* field = &(t.*key.field);
          auto found = best.find(field);
          if (found != best.end() && found->second <= k) continue;
          const std::optional<int> rank = leading_rank(value.substr(key.key.size()));
          if (!rank) continue;
          best[field] = k;
          std::string said(key.key.substr(0, key.key.size() - 1));
          t.*key.field = {*rank, (env ? "process environment " : "command line ") + said};
        }
      });
}

// The host the export was captured on (TARGET_INFO_SYSTEM_ENV Hostname): the node of its ranks.
void read_host(Export& x, RankTrace& t) {
  x.for_each_row("TARGET_INFO_SYSTEM_ENV",
                 "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname' LIMIT 1",
                 [&](sqlite3_stmt* s) { t.host = text(s, 0); });
}

// The NVTX payload's JSON text: jsonText, or through jsonTextId (exports differ), else NULL.
std::string json_column(Export& x) {
  bool by_text = false, by_id = false;
  x.for_each_row("NVTX_EVENTS", "SELECT name FROM pragma_table_info('NVTX_EVENTS')",
                 [&](sqlite3_stmt* s) {
                   const std::string column = text(s, 0);
                   by_text = by_text || column == "jsonText";
                   by_id = by_id || column == "jsonTextId";
                 });
  if (by_text && by_id)
    return "coalesce(n.jsonText, (SELECT value FROM StringIds WHERE id = n.jsonTextId))";
  if (by_text) return "n.jsonText";
  if (by_id) return "(SELECT value FROM StringIds WHERE id = n.jsonTextId)";
  return "NULL";
}

// One record of the export, with its process and emit_nvtx sequence number.
void keep(RankTrace& t, const TraceRecord& r, std::int64_t process, std::int64_t seq) {
  t.records.push_back(r);
  t.record_process.push_back(process);
  t.record_seq.push_back(seq);
}

void read_kernels(Export& x, RankTrace& t) {
  x.for_each_row("CUPTI_ACTIVITY_KIND_KERNEL",
                 "SELECT k.start, k.end, k.deviceId, k.streamId, k.correlationId, s.value, "
                 "k.globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds s ON s.id = "
                 "k.shortName",
                 [&](sqlite3_stmt* s) {
                   TraceRecord r = spanned_record(s, t);
                   r.device = static_cast<std::int16_t>(sqlite3_column_int64(s, 2));
                   r.thread = sqlite3_column_int64(s, 3);
                   r.correlation = sqlite3_column_int64(s, 4);
                   r.name = t.names.intern(text(s, 5));
                   r.on_device = true;
                   r.kind = t.kernel_classes.of(t.names, r.name).kind == KernelClass::kCollective
                                ? RecordKind::kCollectiveWork
                                : RecordKind::kKernel;
                   if (r.end_ns < r.begin_ns)
                     x.fail("CUPTI_ACTIVITY_KIND_KERNEL", "a kernel ends before it starts");
                   keep(t, r, sqlite3_column_int64(s, 6), -1);
                 });
}

// Copies and memsets: device work that the kernel table's memcpy and memset classes count (as
// Kineto's gpu_memcpy and gpu_memset records are); kept for counting only.
void read_copies(Export& x, RankTrace& t) {
  for (const auto& [table, name] : {std::pair{"CUPTI_ACTIVITY_KIND_MEMCPY", "Memcpy"},
                                    {"CUPTI_ACTIVITY_KIND_MEMSET", "Memset"}}) {
    const std::uint32_t id = t.names.intern(name);
    x.for_each_row(table,
                   std::string("SELECT start, end, deviceId, streamId, correlationId, globalPid "
                               "FROM ") +
                       table,
                   [&](sqlite3_stmt* s) {
                     TraceRecord r = spanned_record(s, t);
                     r.device = static_cast<std::int16_t>(sqlite3_column_int64(s, 2));
                     r.thread = sqlite3_column_int64(s, 3);
                     r.correlation = sqlite3_column_int64(s, 4);
                     r.name = id;
                     r.on_device = true;
                     r.kind = RecordKind::kOther;
                     keep(t, r, sqlite3_column_int64(s, 5), -1);
                   });
  }
}

void read_runtime(Export& x, RankTrace& t) {
  x.for_each_row("CUPTI_ACTIVITY_KIND_RUNTIME",
                 "SELECT r.start, r.end, r.globalTid, r.correlationId, s.value FROM "
                 "CUPTI_ACTIVITY_KIND_RUNTIME r LEFT JOIN StringIds s ON s.id = r.nameId",
                 [&](sqlite3_stmt* s) {
                   TraceRecord r = spanned_record(s, t);
                   const std::int64_t global_tid = sqlite3_column_int64(s, 2);
                   r.thread = tid_of(global_tid);
                   r.correlation = sqlite3_column_int64(s, 3);
                   r.name = t.names.intern(text(s, 4));
                   r.kind = RecordKind::kRuntime;
                   keep(t, r, process_of(global_tid), -1);
                 });
}

// A mark (an NVTX event without an end): "MPI Rank N" says the process's rank (nsys
// --trace=mpi).
void read_mark(Export& x, RankTrace& t, const std::string& name, std::int64_t process) {
  if (name.rfind("MPI Rank ", 0) != 0) return;
  const std::optional<int> rank = leading_rank(std::string_view(name).substr(9));
  if (!rank) x.fail("NVTX_EVENTS", "the mark '" + name + "' names no rank a job can have");
  t.process_ranks[process] = {*rank, "NVTX mark 'MPI Rank'"};
}

// NVTX ranges (emit_nvtx names cut to the operator, the numbers apart), marks, and NCCL's
// payloads (NcclNotes: ranks, message sizes, communicators, the two ranks of an exchange).
void read_nvtx(Export& x, RankTrace& t) {
  NcclNotes nccl_notes;
  x.for_each_row(
      "NVTX_EVENTS",
      "SELECT n.start, n.end, n.globalTid, coalesce(n.text, s.value, ''), " + json_column(x) +
          " FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId",
      [&](sqlite3_stmt* s) {
        ++t.events_read;
        const std::string name = text(s, 3);
        const std::int64_t process = process_of(sqlite3_column_int64(s, 2));
        const NcclPayload nccl = sqlite3_column_type(s, 4) == SQLITE_TEXT
                                     ? parse_nccl_payload(text(s, 4))
                                     : NcclPayload{};
        if (sqlite3_column_type(s, 1) == SQLITE_NULL) {
          nccl_notes.note(nccl, process, std::string::npos);
          return read_mark(x, t, name, process);
        }
        TraceRecord r;
        r.begin_ns = sqlite3_column_int64(s, 0);
        r.end_ns = sqlite3_column_int64(s, 1);
        r.thread = tid_of(sqlite3_column_int64(s, 2));
        const NvtxName n = emit_nvtx_name(name);
        r.name = t.names.intern(n.name);
        r.correlation = n.op_id;
        r.kind = n.op_id >= 0 || n.seq >= 0 ? emit_nvtx_kind(n.name) : RecordKind::kLabel;
        // An NCCL call's message size (bytes, as 1-byte elements) and communicator (its group:
        // one id on every rank of it).
        if (nccl.bytes) {
          r.numel = *nccl.bytes;
          r.elem_bytes = 1;
        }
        if (!nccl.communicator.empty())
          r.group =
              static_cast<std::int32_t>(t.names.intern("NCCL communicator " + nccl.communicator));
        if (r.end_ns < r.begin_ns) x.fail("NVTX_EVENTS", "a range ends before it starts");
        keep(t, r, process, n.seq);
        nccl_notes.note(nccl, process, t.records.size() - 1);
      });
  nccl_notes.apply(t);
}

}  // namespace

RankTrace parse_nsys(const std::string& path) {
  RankTrace t;
  t.file = path;
  t.format = "nsys";
  t.clock_domain = path;
  Export x(path);
  check_schema(x, t);
  if (!x.has_table("StringIds")) x.fail("StringIds", "the table is missing");
  read_kernels(x, t);
  read_copies(x, t);
  read_runtime(x, t);
  read_nvtx(x, t);
  read_launch_environment(x, t);
  read_host(x, t);
  t.rank = rank_from_file_name(path);
  t.rank_source = "file name";
  return t;
}

}  // namespace culprit::importers
