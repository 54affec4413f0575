#pragma once
// NCCL's own NVTX ranges (NCCL 2.19+: ncclCommInitRank, ncclAllReduce, ncclSend, ...) carry a
// typed payload whose entries NCCL names ("NCCL communicator ID", "Rank", "No. of ranks",
// "Message size [bytes]", "Peer rank"); an Nsight Systems export holds it as JSON text. Private
// to importers/nsys.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/importers/records.hpp"

namespace culprit::importers {

struct NcclPayload {
  std::string communicator;           // the communicator's id as written, "" when absent
  std::optional<std::int64_t> rank;   // the process's rank in it (a communicator's creation)
  std::optional<std::int64_t> ranks;  // its size
  std::optional<std::int64_t> bytes;  // a collective's message size
  std::optional<std::int64_t> peer;   // a send's or receive's peer: its rank in the communicator
};

// The entries of `json` that NCCL's payloads name; an entry that is absent or not a number in
// range stays unset (a payload of another library has none).
NcclPayload parse_nccl_payload(std::string_view json);

// What NCCL's payloads of one export say, gathered while its NVTX rows are read and applied once
// every row is (a communicator's creation may come after a range that uses it in the table).
class NcclNotes {
 public:
  // A payload of `process`; `record` indexes its range in the trace's records (npos: a mark).
  void note(const NcclPayload& p, std::int64_t process, std::size_t record);
  // Each process's rank in its largest communicator (its process_ranks, where no mark says one)
  // and, for each send or receive whose process's own rank in the communicator is known, the
  // two ranks that exchange as its group ("NCCL communicator C ranks 0-1": one group on both
  // sides, so the exchange pairs between those two ranks only).
  void apply(RankTrace& t) const;

 private:
  struct CommRank {
    std::int64_t ranks = 0;
    int rank = -1;
  };
  struct Exchange {
    std::size_t record = 0;
    std::int64_t process = 0;
    std::string communicator;
    std::int64_t peer = 0;
  };
  std::map<std::int64_t, CommRank> largest_;                              // by process
  std::map<std::pair<std::int64_t, std::string>, std::int64_t> rank_in_;  // (process, comm)
  std::vector<Exchange> exchanges_;
};

}  // namespace culprit::importers
