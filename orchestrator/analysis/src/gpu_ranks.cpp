// GPU -> rank for telemetry samples (docs/importers.md, "GPU telemetry: which rank"): the run's
// provenance says where each rank ran and which CUDA device it used; nvidia-smi and DCGM number
// the host's GPUs, which CUDA_VISIBLE_DEVICES maps CUDA's ordinals onto.
#include "culprit/analysis/gpu_ranks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <sstream>

#include "culprit/errors.hpp"
#include "culprit/importers/units.hpp"

namespace culprit::analysis {

std::map<int, int> parse_gpu_rank(const std::string& text) {
  std::map<int, int> out;
  std::istringstream in(text);
  for (std::string pair; std::getline(in, pair, ',');) {
    const auto eq = pair.find('=');
    const auto gpu = importers::parse_number(pair.substr(0, eq));
    const auto rank =
        eq == std::string::npos ? std::nullopt : importers::parse_number(pair.substr(eq + 1));
    if (!gpu || !rank || *gpu < 0 || *rank < 0 || *gpu > 65535 || *rank > 1e9) {
      throw UsageError("--gpu-rank " + text + ": expected GPU=RANK,... (e.g. 0=8,1=9)");
    }
    out[static_cast<int>(*gpu)] = static_cast<int>(*rank);
  }
  return out;
}

namespace {

using Facts = std::map<std::string, std::string>;

std::optional<int> whole(std::string_view text) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

std::string fact(const Facts& f, const std::string& key) {
  const auto it = f.find(key);
  return it == f.end() ? std::string() : it->second;
}

// The CUDA ordinal the rank used: provenance "device" = "N: name" (culprit-step's cuda backend).
std::optional<int> cuda_device(const Facts& f) {
  const std::string d = fact(f, "device");
  return whole(d.substr(0, d.find(':')));
}

// The local rank from the launcher's variables, and which one said it.
std::optional<std::pair<int, std::string>> local_rank(const Facts& f) {
  for (const char* key :
       {"env.OMPI_COMM_WORLD_LOCAL_RANK", "env.SLURM_LOCALID", "env.LOCAL_RANK"}) {
    if (const auto v = whole(fact(f, key))) return std::make_pair(*v, std::string(key + 4));
  }
  return std::nullopt;
}

// CUDA_VISIBLE_DEVICES as GPU indices; empty when unset or not all indices (UUIDs, MIG).
std::vector<int> visible_devices(const Facts& f) {
  std::vector<int> out;
  std::istringstream in(fact(f, "env.CUDA_VISIBLE_DEVICES"));
  for (std::string item; std::getline(in, item, ',');) {
    const auto v = whole(item);
    if (!v) return {};
    out.push_back(*v);
  }
  return out;
}

RankGpu locate(int rank, const Facts& f, int place_on_host) {
  RankGpu g{rank, fact(f, "host"), std::nullopt, ""};
  if (g.host.empty()) return g;
  int ordinal = 0;
  if (const auto d = cuda_device(f)) {
    ordinal = *d;
    g.how = fmt::format("CUDA device {} (provenance device)", ordinal);
  } else if (const auto l = local_rank(f)) {
    ordinal = l->first;
    g.how = fmt::format("local rank {} ({}), one GPU per local rank", ordinal, l->second);
  } else {
    ordinal = place_on_host;
    g.how = fmt::format("local rank {} (its place among host {}'s ranks), one GPU per local rank",
                        ordinal, g.host);
  }
  const std::vector<int> visible = visible_devices(f);
  if (!visible.empty() && ordinal < static_cast<int>(visible.size())) {
    g.gpu = visible[static_cast<std::size_t>(ordinal)];
    g.how += ", CUDA_VISIBLE_DEVICES=" + fact(f, "env.CUDA_VISIBLE_DEVICES");
  } else {
    g.gpu = ordinal;
  }
  return g;
}

}  // namespace

std::vector<RankGpu> rank_gpus(const std::map<int, Facts>& provenance, int ranks) {
  std::vector<RankGpu> out;
  std::map<std::string, int> seen_on_host;
  for (int r = 0; r < ranks; ++r) {
    const auto it = provenance.find(r);
    const Facts none;
    const Facts& f = it == provenance.end() ? none : it->second;
    out.push_back(locate(r, f, seen_on_host[fact(f, "host")]++));
  }
  return out;
}

bool same_host(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const std::string sa = a.substr(0, a.find('.'));
  return !sa.empty() && sa == b.substr(0, b.find('.'));
}

GpuRanks GpuRanks::explicit_map(const std::map<int, int>& gpu_rank) {
  GpuRanks m;
  m.mode_ = Mode::kExplicit;
  m.rule_ = "explicit: --gpu-rank";
  m.explicit_ = gpu_rank;
  return m;
}

GpuRanks GpuRanks::one_rank(int rank) {
  GpuRanks m;
  m.mode_ = Mode::kOneRank;
  m.rule_ = fmt::format("--attach's rank {}: the file holds one GPU", rank);
  m.one_rank_ = rank;
  return m;
}

GpuRanks GpuRanks::from_provenance(std::vector<RankGpu> gpus) {
  GpuRanks m;
  m.rule_ = "provenance: the sample's host and GPU index against each rank's host and GPU";
  m.gpus_ = std::move(gpus);
  return m;
}

int GpuRanks::rank_of(const std::string& host, int gpu) const {
  if (mode_ == Mode::kOneRank) return one_rank_;
  if (mode_ == Mode::kExplicit) {
    const auto it = explicit_.find(gpu);
    return it == explicit_.end() ? -1 : it->second;
  }
  const RankGpu* found = nullptr;
  for (const RankGpu& g : gpus_) {
    if (!g.gpu || *g.gpu != gpu || !same_host(g.host, host)) continue;
    if (found) {
      throw UsageError(fmt::format(
          "GPU {} on host {} is the GPU of ranks {} and {} by their provenance: pass --gpu-rank "
          "GPU=RANK,... to say which rank each GPU served",
          gpu, host, found->rank, g.rank));
    }
    found = &g;
  }
  if (!found) return -1;
  used_[found->rank] =
      fmt::format("rank {}: host {} GPU {} ({})", found->rank, found->host, gpu, found->how);
  return found->rank;
}

std::vector<std::string> GpuRanks::used() const {
  std::vector<std::string> out;
  for (const auto& [rank, line] : used_) out.push_back(line);
  return out;
}

}  // namespace culprit::analysis
