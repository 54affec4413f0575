#pragma once
// Which rank a GPU telemetry sample belongs to: its host and GPU index (as nvidia-smi and DCGM
// number GPUs) mapped through the run's provenance, else an explicit --gpu-rank. Pure: the
// provenance comes in as a map (storage::load_rank_provenance).

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace culprit::analysis {

// "0=0,1=1,..." (GPU index = rank); UsageError otherwise.
std::map<int, int> parse_gpu_rank(const std::string& text);

// Where one rank's GPU is, and how that was worked out.
struct RankGpu {
  int rank = 0;
  std::string host;
  std::optional<int> gpu;  // the physical index; nullopt: not known
  std::string how;         // e.g. "CUDA device 1 (provenance device), CUDA_VISIBLE_DEVICES=4,5"
};

// Per rank, from provenance: host ("host"); the CUDA device ordinal ("device" = "N: name", as
// culprit-step's cuda backend writes it), else the local rank (env.OMPI_COMM_WORLD_LOCAL_RANK,
// env.SLURM_LOCALID, env.LOCAL_RANK, else the rank's place among its host's ranks: one GPU per
// local rank, the convention of culprit-step and torchrun); then mapped through the rank's
// env.CUDA_VISIBLE_DEVICES when it lists GPU indices. A rank without a host has no GPU.
std::vector<RankGpu> rank_gpus(const std::map<int, std::map<std::string, std::string>>& provenance,
                               int ranks);

// Host names match exactly, or by their first label ("node1" and "node1.cluster").
bool same_host(const std::string& a, const std::string& b);

// The mapping used for one attach: `rank_of` gives -1 for a GPU that serves no rank.
class GpuRanks {
 public:
  // --gpu-rank GPU=RANK,...: hosts are not looked at.
  static GpuRanks explicit_map(const std::map<int, int>& gpu_rank);
  // One rank for every GPU of a file that holds one GPU (--attach RUN:RANK).
  static GpuRanks one_rank(int rank);
  static GpuRanks from_provenance(std::vector<RankGpu> gpus);

  // The rank of GPU `gpu` on `host`; -1: none. UsageError when several ranks claim it.
  int rank_of(const std::string& host, int gpu) const;
  // The rule, said in the import's warnings and --json.
  const std::string& rule() const { return rule_; }
  // One line per rank that a sample was placed on: "rank 3: host a GPU 3 (how)".
  std::vector<std::string> used() const;

 private:
  enum class Mode { kExplicit, kOneRank, kProvenance };
  Mode mode_ = Mode::kProvenance;
  std::string rule_;
  std::map<int, int> explicit_;
  int one_rank_ = -1;
  std::vector<RankGpu> gpus_;
  mutable std::map<int, std::string> used_;
};

}  // namespace culprit::analysis
