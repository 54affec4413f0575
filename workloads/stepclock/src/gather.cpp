#include "gather.hpp"

#include <cstring>
#include <stdexcept>

namespace stepclock {
namespace {

std::vector<char> gather_bytes(MPI_Comm comm, const char* data, std::size_t n,
                               std::vector<int>& counts) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (n > static_cast<std::size_t>(INT32_MAX)) {
    throw std::runtime_error("stepclock: a rank's buffer exceeds 2 GiB; record fewer events");
  }
  const int mine = static_cast<int>(n);
  counts.assign(static_cast<std::size_t>(size), 0);
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<int> displacements(counts.size(), 0);
  std::vector<char> all;
  if (rank == 0) {
    std::int64_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      if (total > INT32_MAX) throw std::runtime_error("stepclock: gathered events exceed 2 GiB");
      displacements[r] = static_cast<int>(total);
      total += counts[r];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(data, mine, MPI_BYTE, all.data(), counts.data(), displacements.data(), MPI_BYTE, 0,
              comm);
  return all;
}

}  // namespace

std::vector<std::vector<std::string>> gather_strings(MPI_Comm comm,
                                                     const std::vector<std::string>& mine) {
  // Each string is sent with its terminating NUL; strings never contain NUL here.
  std::string packed;
  for (const std::string& s : mine) {
    packed.append(s);
    packed.push_back('\0');
  }
  std::vector<int> counts;
  const std::vector<char> all = gather_bytes(comm, packed.data(), packed.size(), counts);
  std::vector<std::vector<std::string>> result;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return result;
  result.resize(counts.size());
  std::size_t offset = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const std::size_t end = offset + static_cast<std::size_t>(counts[r]);
    while (offset < end) {
      const std::size_t length = std::strlen(all.data() + offset);
      result[r].emplace_back(all.data() + offset, length);
      offset += length + 1;
    }
  }
  return result;
}

std::vector<EventRecord> gather_events(MPI_Comm comm, const EventRecord* events, std::size_t n) {
  std::vector<int> counts;
  const std::vector<char> all =
      gather_bytes(comm, reinterpret_cast<const char*>(events), n * sizeof(EventRecord), counts);
  std::vector<EventRecord> result(all.size() / sizeof(EventRecord));
  if (!all.empty()) std::memcpy(result.data(), all.data(), result.size() * sizeof(EventRecord));
  return result;
}

}  // namespace stepclock
