// The rank numbers of a job's Nsight Systems exports (docs/importers.md, "Ranks"), one export
// per rank or per node. A rank's number is, in order: the rank it says (a one-rank export's file
// name, its launched process's RANK / OMPI_COMM_WORLD_RANK / SLURM_PROCID / PMI_RANK / --rank;
// a process's MPI Rank mark or NCCL communicator rank) when every rank of the job says a
// distinct one; else, in one export, the CUDA device id, else the order of (process, device);
// else, over several exports, its number within its node (LOCAL_RANK, else the device id) plus
// the node's offset (the ranks of the nodes before it, nodes by NODE_RANK / GROUP_RANK /
// SLURM_NODEID / --node_rank, else by host name in the files' order). The rule is stated in
// each rank's rank_source and once in a warning.
#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

#include "culprit/importers/nsys.hpp"
#include "culprit/importers/rank_units.hpp"

namespace culprit::importers {
namespace {

// The rank a one-unit export says: its file name, its launched process, its process's own word.
ProcessRank one_unit_said(const ExportUnits& e) {
  const RankTrace& w = e.whole;
  if (w.rank >= 0) return {w.rank, w.rank_source};
  if (w.launch_rank.rank >= 0) return w.launch_rank;
  auto mark = e.units.empty() ? w.process_ranks.end() : w.process_ranks.find(e.units[0].process);
  if (mark == w.process_ranks.end() && w.process_ranks.size() == 1) mark = w.process_ranks.begin();
  return mark != w.process_ranks.end() ? mark->second : ProcessRank{};
}

// What each unit of `e` says of its rank (a unit-less export counts as one unit).
std::vector<ProcessRank> said_ranks(const ExportUnits& e, RankBy by) {
  if (e.units.size() <= 1) return {one_unit_said(e)};
  std::vector<ProcessRank> out;
  for (const Unit& u : e.units) {
    auto p = e.whole.process_ranks.find(u.process);
    out.push_back(p != e.whole.process_ranks.end() && by != RankBy::kDevice ? p->second
                                                                            : ProcessRank{});
  }
  return out;
}

using Numbers = std::vector<std::vector<int>>;  // per export, per unit

bool distinct(const Numbers& n) {
  std::set<int> seen;
  for (const auto& list : n) {
    for (int v : list) {
      if (v < 0 || !seen.insert(v).second) return false;
    }
  }
  return true;
}

// Numbers within one multi-unit export, by the first rule that gives each a distinct number.
std::pair<std::vector<int>, std::string> one_export_numbers(const ExportUnits& e) {
  std::vector<int> device;
  for (const Unit& u : e.units) device.push_back(u.device);
  if (distinct({device})) return {device, "the CUDA device id"};
  std::vector<int> order(e.units.size());
  std::iota(order.begin(), order.end(), 0);
  return {order, "the order of (process, device) in the export"};
}

// A node: the exports captured on one host (or one export when it names no host).
struct Node {
  std::string key;
  std::vector<std::size_t> exports;
  int said = -1;  // its index as its exports' launched processes say it, -1 when they do not agree
  std::string said_by;
};

std::vector<Node> nodes_of(const std::vector<ExportUnits>& exports) {
  std::vector<Node> nodes;
  for (std::size_t i = 0; i < exports.size(); ++i) {
    const RankTrace& w = exports[i].whole;
    const std::string key = w.host.empty() ? w.file : w.host;
    auto it = std::find_if(nodes.begin(), nodes.end(), [&](const Node& n) { return n.key == key; });
    const bool fresh = it == nodes.end();
    if (fresh)
      it = nodes.insert(nodes.end(), Node{key, {}, w.launch_node.rank, w.launch_node.source});
    if (!fresh && it->said != w.launch_node.rank) it->said = -1;
    it->exports.push_back(i);
  }
  return nodes;
}

std::size_t unit_count(const ExportUnits& e) {
  return std::max<std::size_t>(1, e.units.size());
}

// Each unit's number within its node: LOCAL_RANK of a one-unit export where said, else the
// device id, as they are when every unit of the node has a distinct one (a node given in part
// keeps its numbers), else 0, 1, ... in that order (ties and unknowns by the files' order).
struct NodeLocals {
  std::vector<std::tuple<std::size_t, std::size_t, int>> numbers;  // (export, unit, local)
  int size = 0;  // the node's ranks as numbered: the highest local number + 1
  bool local_rank_used = false;
};

NodeLocals node_locals(const std::vector<ExportUnits>& exports, const Node& node) {
  NodeLocals out;
  std::vector<int> said;
  for (std::size_t e : node.exports) {
    const ExportUnits& x = exports[e];
    for (std::size_t u = 0; u < unit_count(x); ++u) {
      int local = x.units.empty() ? -1 : x.units[u].device;
      if (unit_count(x) == 1 && x.whole.launch_local_rank.rank >= 0) {
        local = x.whole.launch_local_rank.rank;
        out.local_rank_used = true;
      }
      out.numbers.emplace_back(e, u, local);
      said.push_back(local);
    }
  }
  if (distinct({said})) {
    for (int v : said) out.size = std::max(out.size, v + 1);
    return out;
  }
  std::stable_sort(out.numbers.begin(), out.numbers.end(), [](const auto& a, const auto& b) {
    const int x = std::get<2>(a), y = std::get<2>(b);
    return (x < 0 ? std::numeric_limits<int>::max() : x) <
           (y < 0 ? std::numeric_limits<int>::max() : y);
  });
  for (std::size_t k = 0; k < out.numbers.size(); ++k)
    std::get<2>(out.numbers[k]) = static_cast<int>(k);
  out.size = static_cast<int>(out.numbers.size());
  return out;
}

// Exports whose ranks do not all say a distinct number, over several nodes: numbers within each
// node plus the node's offset.
std::string node_numbers(const std::vector<ExportUnits>& exports, Numbers& numbers) {
  std::vector<Node> nodes = nodes_of(exports);
  std::set<int> said;
  for (const Node& n : nodes) said.insert(n.said);
  const bool by_said = !said.count(-1) && said.size() == nodes.size();
  if (by_said) {
    std::stable_sort(nodes.begin(), nodes.end(),
                     [](const Node& a, const Node& b) { return a.said < b.said; });
  }
  std::vector<NodeLocals> locals;
  int widest = 0;
  bool local_rank_used = false;
  for (const Node& n : nodes) {
    locals.push_back(node_locals(exports, n));
    widest = std::max(widest, locals.back().size);
    local_rank_used = local_rank_used || locals.back().local_rank_used;
  }
  int offset = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    // Nodes that say their index leave room for a node not given (--partial).
    if (by_said) offset = nodes[i].said * widest;
    for (const auto& [e, u, local] : locals[i].numbers) numbers[e][u] = offset + local;
    offset += locals[i].size;
  }
  return std::string(local_rank_used ? "LOCAL_RANK" : "the CUDA device id") +
         " within its node plus the node's offset (" +
         (by_said
              ? "nodes numbered by " + nodes[0].said_by + " x " + std::to_string(widest) + " ranks"
              : "nodes by host name in the files' order, each after the ranks of those "
                "before it") +
         ")";
}

// The ranks of one export, numbered, with the rule stated (and warned once for several).
std::vector<RankTrace> numbered_traces(ExportUnits& e, const std::vector<int>& numbers,
                                       const std::vector<std::string>& rules, RankBy by) {
  if (e.units.size() <= 1) {
    RankTrace whole = std::move(e.whole);
    whole.rank = numbers[0];
    whole.rank_source = numbers[0] >= 0 ? rules[0] : whole.rank_source;
    whole.record_process = {};
    whole.record_seq = {};
    return {std::move(whole)};
  }
  std::vector<RankTrace> out = unit_traces(e);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].rank = numbers[i];
    out[i].rank_source = rules[i] + " (" + process_text(e.units[i]) + ")";
  }
  const bool per_device = e.units.size() > e.processes.size() || by == RankBy::kDevice;
  out[0].warnings.insert(
      out[0].warnings.begin(),
      e.whole.file + ": " + std::to_string(e.units.size()) + " ranks in one export, " +
          (per_device ? "a rank per (process, GPU)" : "a rank per process (globalPid)") +
          "; rank numbers from " + rules[0] +
          (rules[0].rfind("the rank each process says", 0) == 0
               ? std::string()
               : std::string(" (the export holds no RANK / LOCAL_RANK / OMPI_COMM_WORLD_RANK / "
                             "SLURM_PROCID per process, no MPI Rank mark per process and no "
                             "NCCL communicator ranks)")));
  return out;
}

}  // namespace

std::vector<RankTrace> split_nsys_ranks(std::vector<RankTrace> files, RankBy by) {
  if (files.empty()) return {};  // a job of Kineto or legacy traces only
  std::vector<ExportUnits> exports;
  Numbers said, numbers;
  std::vector<std::vector<std::string>> rules;
  for (RankTrace& f : files) {
    exports.push_back(export_units(std::move(f), by));
    const std::vector<ProcessRank> s = said_ranks(exports.back(), by);
    said.emplace_back();
    rules.emplace_back();
    for (const ProcessRank& p : s) {
      said.back().push_back(p.rank);
      const bool several = exports.back().units.size() > 1;
      rules.back().push_back(several ? "the rank each process says (" + p.source + ")" : p.source);
    }
  }
  numbers = said;
  // One export is numbered within itself, unless it says its node is not the first (a node's
  // part of a job) or it is one rank that says only its LOCAL_RANK: then the node rule.
  const RankTrace& first = exports[0].whole;
  const bool one_node = exports.size() == 1 && first.launch_node.rank <= 0 &&
                        (exports[0].units.size() > 1 || first.launch_local_rank.rank < 0);
  if (!distinct(said) && one_node && exports[0].units.size() > 1) {
    auto [n, rule] = one_export_numbers(exports[0]);
    numbers = {n};
    rules = {std::vector<std::string>(n.size(), rule)};
  } else if (!distinct(said) && !one_node) {
    const std::string rule = node_numbers(exports, numbers);
    for (auto& list : rules) list.assign(list.size(), rule);
    exports[0].whole.warnings.push_back(
        std::to_string(exports.size()) +
        " Nsight Systems export(s) of one job whose ranks do not "
        "each say a distinct rank (RANK, an MPI Rank mark, an NCCL communicator rank, a "
        "rank<R> file name): rank numbers from " +
        rule);
  }
  std::vector<RankTrace> out;
  for (std::size_t i = 0; i < exports.size(); ++i) {
    for (RankTrace& t : numbered_traces(exports[i], numbers[i], rules[i], by))
      out.push_back(std::move(t));
  }
  return out;
}

}  // namespace culprit::importers
