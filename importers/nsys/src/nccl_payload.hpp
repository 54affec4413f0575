#pragma once
// NCCL's own NVTX ranges (NCCL 2.19+: ncclCommInitRank, ncclAllReduce, ncclSend, ...) carry a
// typed payload whose entries NCCL names ("NCCL communicator ID", "Rank", "No. of ranks",
// "Message size [bytes]", "Peer rank"); an Nsight Systems export holds it as JSON text. Private
// to importers/nsys.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace culprit::importers {

struct NcclPayload {
  std::string communicator;           // the communicator's id as written, "" when absent
  std::optional<std::int64_t> rank;   // the process's rank in it (a communicator's creation)
  std::optional<std::int64_t> ranks;  // its size
  std::optional<std::int64_t> bytes;  // a collective's message size
};

// The entries of `json` that NCCL's payloads name; an entry that is absent or not a number in
// range stays unset (a payload of another library has none).
NcclPayload parse_nccl_payload(std::string_view json);

}  // namespace culprit::importers
