// Collectives across ranks: which names are calls and work, the cross-rank identity of every
// collective, and its check by identifiers (step, ordinal, element count, process group, Seq).
// One rank's pairing of calls with their work is call_pairing.cpp.
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include "culprit/common/kernels.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/mapping.hpp"

namespace culprit::importers {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

constexpr std::array<std::string_view, 14> kMpiCollectives = {
    "MPI_Allreduce",      "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall",
    "MPI_Alltoallv",      "MPI_Bcast",     "MPI_Barrier",    "MPI_Reduce",
    "MPI_Reduce_scatter", "MPI_Gather",    "MPI_Gatherv",    "MPI_Scatter",
    "MPI_Scatterv",       "MPI_Scan"};

}  // namespace

bool is_collective_call(std::string_view name) {
  if (starts_with(name, "c10d::")) return name != "c10d::wait" && name != "c10d::wait_";
  if (starts_with(name, "nccl:")) return true;
  // PyTorch's symmetric-memory collectives (symm_mem::multimem_all_reduce_), whose kernels are
  // no nccl* kernels.
  if (starts_with(name, "symm_mem::")) return collective_op_from_name(name) != CollectiveOp::kNone;
  // NCCL's own API ranges (NCCL 2.19+ NVTX: ncclAllReduce, ncclBroadcast, ...). Not ncclSend and
  // ncclRecv: a send and its receive have different names on the two ranks, while the SendRecv
  // kernel they launch has one name on both, and pairs as the collective.
  if (name.size() > 4 && starts_with(name, "nccl") && name[4] >= 'A' && name[4] <= 'Z') {
    const CollectiveOp op = collective_op_from_name(name);
    return op != CollectiveOp::kNone && op != CollectiveOp::kSendRecv;
  }
  return std::find(kMpiCollectives.begin(), kMpiCollectives.end(), name) != kMpiCollectives.end();
}

bool is_collective_work(std::string_view name) {
  return starts_with(name, "gloo:") || classify_kernel(name).kind == KernelClass::kCollective;
}

const KernelKind& KernelClasses::of(const NameTable& names, std::uint32_t name) const {
  if (name >= known_.size()) known_.resize(names.size(), 0);
  if (!known_[name]) {
    kinds_.resize(known_.size());
    kinds_[name] = classify_kernel(names[name]);
    known_[name] = 1;
  }
  return kinds_[name];
}

void assign_identities(const std::vector<RankTrace>& traces,
                       std::vector<std::vector<RankCollective>>& colls) {
  // Seq is the identity only when every collective of every file has one.
  bool any = false;
  bool all_seq = true;
  for (const auto& list : colls) {
    for (const RankCollective& c : list) {
      any = true;
      all_seq = all_seq && c.seq >= 0;
    }
  }
  all_seq = all_seq && any;
  using Key = std::tuple<int, std::string, std::string, std::int64_t>;
  std::map<Key, int> canonical;
  std::map<int, int> next;  // per step
  for (std::size_t r = 0; r < colls.size(); ++r) {
    std::map<std::tuple<int, std::string, std::string>, std::int64_t> in_group;
    std::set<std::pair<int, int>> used;
    for (RankCollective& c : colls[r]) {
      const std::string group =
          c.group >= 0 ? traces[r].names[static_cast<std::uint32_t>(c.group)] : std::string();
      // Without a Seq: the k-th collective of its name in the step and group is the k-th on
      // every rank (a communicator's collectives are issued in one order; a different name is
      // never the same collective, so a trace that lost one, sampled, shifts only that name's).
      const std::string& name = traces[r].names[c.name];
      const Key key = all_seq ? Key{-1, group, "", c.seq}
                              : Key{c.step, group, name, in_group[{c.step, group, name}]++};
      auto [it, inserted] = canonical.try_emplace(key, 0);
      if (inserted) it->second = next[c.step]++;
      c.ordinal = it->second;
      if (!used.insert({c.step, c.ordinal}).second) {
        throw UsageError(traces[r].file + ": step " + std::to_string(c.step) +
                         " holds two collectives with one identity (process group '" + group +
                         "', Seq " + std::to_string(c.seq) +
                         "): the ranks disagree on which step a collective belongs to");
      }
    }
  }
}

std::set<std::pair<int, int>> collectives_missing_members(
    const std::vector<RankTrace>& traces, const std::vector<std::vector<RankCollective>>& colls) {
  std::set<int> imported;
  for (const RankTrace& t : traces) imported.insert(t.rank);
  std::set<std::pair<int, int>> missing;
  for (std::size_t r = 0; r < traces.size(); ++r) {
    for (const RankCollective& c : colls[r]) {
      const auto& groups = traces[r].group_ranks;
      auto g = c.group >= 0 ? groups.find(traces[r].names[static_cast<std::uint32_t>(c.group)])
                            : groups.end();
      const bool whole =
          g != groups.end() && std::all_of(g->second.begin(), g->second.end(),
                                           [&](int member) { return imported.count(member) > 0; });
      if (!whole) missing.insert({c.step, c.ordinal});
    }
  }
  return missing;
}

CollectiveCheck check_collectives(const std::vector<RankTrace>& traces,
                                  const std::vector<std::vector<RankCollective>>& colls,
                                  bool partial) {
  std::map<std::pair<int, int>, std::vector<const RankCollective*>> by_key;
  const std::size_t ranks = traces.size();
  for (std::size_t r = 0; r < ranks; ++r) {
    for (const RankCollective& c : colls[r]) {
      auto& slot = by_key[{c.step, c.ordinal}];
      slot.resize(ranks, nullptr);
      slot[r] = &c;
    }
  }
  CollectiveCheck result;
  std::vector<std::string>& warnings = result.warnings;
  int incomplete = 0;
  std::string first_incomplete;
  for (const auto& entry : by_key) {
    const std::pair<int, int> key = entry.first;  // a copy: lambdas below capture it
    const std::vector<const RankCollective*>& members = entry.second;
    std::size_t ref = ranks;
    for (std::size_t r = 0; r < ranks; ++r) {
      const RankCollective* c = members[r];
      if (!c) {
        if (incomplete++ == 0) {
          first_incomplete = "step " + std::to_string(key.first) + " collective #" +
                             std::to_string(key.second) + " is missing in " + traces[r].file;
        }
        continue;
      }
      if (ref == ranks) {
        ref = r;
        continue;
      }
      const RankCollective& a = *members[ref];
      const RankTrace& ta = traces[ref];
      const RankTrace& tb = traces[r];
      auto fail = [&](const std::string& what, const std::string& va, const std::string& vb) {
        const std::string where = "step " + std::to_string(key.first) + " collective #" +
                                  std::to_string(key.second) + " has " + what + " " + va + " in " +
                                  ta.file + " but " + vb + " in " + tb.file;
        if (partial) {
          if (result.dropped.insert(key).second)
            warnings.push_back("collectives do not match (" + where + "): not stored");
          return;
        }
        throw UsageError("collectives do not match across ranks: step " +
                         std::to_string(key.first) + " collective #" + std::to_string(key.second) +
                         " has " + what + " " + va + " in " + ta.file + " (rank " +
                         std::to_string(ta.rank) + ") but " + vb + " in " + tb.file + " (rank " +
                         std::to_string(tb.rank) +
                         "): the files are not of one job, or a rank issued other collectives; "
                         "import files of one job (or pass --partial to keep only the matching "
                         "ones)");
      };
      if (ta.names[a.name] != tb.names[c->name]) fail("name", ta.names[a.name], tb.names[c->name]);
      if (a.numel >= 0 && c->numel >= 0 && a.numel != c->numel)
        fail("element count", std::to_string(a.numel), std::to_string(c->numel));
      if (a.seq >= 0 && c->seq >= 0 && a.seq != c->seq)
        fail("Seq", std::to_string(a.seq), std::to_string(c->seq));
      if (a.group >= 0 && c->group >= 0 && ta.names[a.group] != tb.names[c->group])
        fail("process group", ta.names[a.group], tb.names[c->group]);
    }
  }
  if (incomplete > 0) {
    warnings.push_back(std::to_string(incomplete) +
                       " collective(s) are not in every file (first: " + first_incomplete +
                       "); they are stored but take no part in matching");
  }
  return result;
}

}  // namespace culprit::importers
