// NCCL's NVTX payloads as an Nsight Systems export writes them (JSON text): only the entries NCCL
// names are read, by key, wherever the exporter nests them.
#include "nccl_payload.hpp"

#include <charconv>
#include <limits>

namespace culprit::importers {
namespace {

// The raw text of the value after `"key":` (a number, or a string without its quotes), empty
// when the key is absent.
std::string_view json_value(std::string_view json, std::string_view key) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  std::size_t at = json.find(quoted);
  if (at == std::string_view::npos) return {};
  at = json.find_first_not_of(" \t\r\n", at + quoted.size());
  if (at == std::string_view::npos || json[at] != ':') return {};
  at = json.find_first_not_of(" \t\r\n", at + 1);
  if (at == std::string_view::npos) return {};
  if (json[at] == '"') {
    const std::size_t end = json.find('"', at + 1);
    return end == std::string_view::npos ? std::string_view{} : json.substr(at + 1, end - at - 1);
  }
  const std::size_t end = json.find_first_of(",}] \t\r\n", at);
  return json.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
}

std::optional<std::int64_t> non_negative(std::string_view text) {
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || n < 0)
    return std::nullopt;
  return n;
}

}  // namespace

NcclPayload parse_nccl_payload(std::string_view json) {
  NcclPayload p;
  if (json.find("\"NCCL communicator ID\"") == std::string_view::npos) return p;
  p.communicator = std::string(json_value(json, "NCCL communicator ID"));
  p.rank = non_negative(json_value(json, "Rank"));
  p.ranks = non_negative(json_value(json, "No. of ranks"));
  p.bytes = non_negative(json_value(json, "Message size [bytes]"));
  p.peer = non_negative(json_value(json, "Peer rank"));
  return p;
}

void NcclNotes::note(const NcclPayload& p, std::int64_t process, std::size_t record) {
  if (p.communicator.empty()) return;
  if (p.rank && p.ranks && *p.rank < *p.ranks && *p.ranks <= std::numeric_limits<int>::max()) {
    rank_in_[{process, p.communicator}] = *p.rank;
    CommRank& best = largest_[process];
    if (*p.ranks > best.ranks) best = {*p.ranks, static_cast<int>(*p.rank)};
  }
  if (p.peer && record != std::string::npos)
    exchanges_.push_back({record, process, p.communicator, *p.peer});
}

void NcclNotes::apply(RankTrace& t) const {
  for (const auto& [process, comm] : largest_) {
    // An MPI Rank mark, where the process has one, says the rank first.
    t.process_ranks.try_emplace(process, ProcessRank{comm.rank, "NCCL communicator rank"});
  }
  for (const Exchange& x : exchanges_) {
    auto own = rank_in_.find({x.process, x.communicator});
    if (own == rank_in_.end() || own->second == x.peer) continue;
    const std::int64_t lo = std::min(own->second, x.peer), hi = std::max(own->second, x.peer);
    t.records[x.record].group =
        static_cast<std::int32_t>(t.names.intern("NCCL communicator " + x.communicator + " ranks " +
                                                 std::to_string(lo) + "-" + std::to_string(hi)));
  }
}

}  // namespace culprit::importers
