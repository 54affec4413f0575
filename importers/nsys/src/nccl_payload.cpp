// NCCL's NVTX payloads as an Nsight Systems export writes them (JSON text): only the entries NCCL
// names are read, by key, wherever the exporter nests them.
#include "nccl_payload.hpp"

#include <charconv>

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
  return p;
}

}  // namespace culprit::importers
