// Telemetry beside a run (analysis/gpu_ranks, why_telemetry, telemetry_view; report's telemetry
// line): every input here is hand-written (provenance maps, samples on a made-up aligned clock),
// with the answers worked out by hand in the comments.
#include <doctest/doctest.h>

#include <cmath>

#include "culprit/analysis/gpu_ranks.hpp"
#include "culprit/analysis/telemetry_view.hpp"
#include "culprit/analysis/why_telemetry.hpp"
#include "culprit/errors.hpp"
#include "culprit/report/telemetry_report.hpp"
#include "culprit/report/why_report.hpp"

using namespace culprit::analysis;
using culprit::storage::TelemetryRow;

namespace {

using Provenance = std::map<int, std::map<std::string, std::string>>;

TelemetryRow sample(int rank, const char* field, double time_ns, double value) {
  return TelemetryRow{rank, rank, "", "hand.csv", field, time_ns, value};
}

// Steps 0 (warm-up) .. 3 of 10 ns each on the aligned clock: [0,10), [10,20), [20,30), [30,40).
std::vector<StepWindow> four_steps() {
  std::vector<StepWindow> s;
  for (int i = 0; i < 4; ++i) s.push_back({i, i == 0, {i * 10.0, i * 10.0 + 10.0}});
  return s;
}

}  // namespace

TEST_CASE("GPU -> rank from provenance: CUDA device, local rank, CUDA_VISIBLE_DEVICES") {
  const Provenance p = {
      // culprit-step's cuda backend: device "1: ..." and all GPUs visible -> GPU 5 of "4,5"
      {0, {{"host", "node1"}, {"device", "1: NVIDIA H100"}, {"env.CUDA_VISIBLE_DEVICES", "4,5"}}},
      // mpirun's local rank, one GPU per local rank
      {1, {{"host", "node1"}, {"env.OMPI_COMM_WORLD_LOCAL_RANK", "2"}}},
      // srun's local id with a one-GPU CUDA_VISIBLE_DEVICES: that GPU
      {2,
       {{"host", "node2.cluster"}, {"env.SLURM_LOCALID", "0"}, {"env.CUDA_VISIBLE_DEVICES", "3"}}},
      // nothing but the host: its place among node2's ranks (rank 2 came first) -> 1
      {3, {{"host", "node2.cluster"}, {"env.CUDA_VISIBLE_DEVICES", "GPU-8a1f"}}},
      // no host: no GPU
      {4, {{"device", "0: x"}}},
  };
  const std::vector<RankGpu> g = rank_gpus(p, 6);
  REQUIRE(g.size() == 6);
  CHECK(*g[0].gpu == 5);
  CHECK(g[0].how == "CUDA device 1 (provenance device), CUDA_VISIBLE_DEVICES=4,5");
  CHECK(*g[1].gpu == 2);
  CHECK(g[1].how == "local rank 2 (OMPI_COMM_WORLD_LOCAL_RANK), one GPU per local rank");
  CHECK(*g[2].gpu == 3);
  CHECK(*g[3].gpu == 1);  // a UUID list is not indices: the ordinal stands
  CHECK(g[3].how ==
        "local rank 1 (its place among host node2.cluster's ranks), one GPU per local rank");
  CHECK_FALSE(g[4].gpu);
  CHECK_FALSE(g[5].gpu);  // rank 5 has no provenance at all

  const GpuRanks m = GpuRanks::from_provenance(g);
  CHECK(m.rank_of("node1", 5) == 0);
  CHECK(m.rank_of("node1.cluster", 2) == 1);  // the first label matches
  CHECK(m.rank_of("node2", 3) == 2);
  CHECK(m.rank_of("node2", 1) == 3);
  CHECK(m.rank_of("node1", 0) == -1);  // a GPU no rank used
  CHECK(m.rank_of("node3", 5) == -1);
  CHECK(m.used().front() ==
        "rank 0: host node1 GPU 5 (CUDA device 1 (provenance device), "
        "CUDA_VISIBLE_DEVICES=4,5)");
  CHECK(m.rule().rfind("provenance: ", 0) == 0);
}

TEST_CASE("GPU -> rank: two ranks on one GPU are refused; explicit and one-rank rules") {
  const Provenance shared = {{0, {{"host", "a"}, {"device", "0: x"}}},
                             {1, {{"host", "a"}, {"device", "0: x"}}}};
  const GpuRanks m = GpuRanks::from_provenance(rank_gpus(shared, 2));
  try {
    (void)m.rank_of("a", 0);
    FAIL("two ranks on GPU 0 were not refused");
  } catch (const culprit::UsageError& e) {
    CHECK(std::string(e.what()) ==
          "GPU 0 on host a is the GPU of ranks 0 and 1 by their provenance: pass --gpu-rank "
          "GPU=RANK,... to say which rank each GPU served");
  }
  const GpuRanks x = GpuRanks::explicit_map(parse_gpu_rank("0=8,1=9"));
  CHECK(x.rank_of("anything", 1) == 9);
  CHECK(x.rank_of("", 2) == -1);
  CHECK(x.rule() == "explicit: --gpu-rank");
  const GpuRanks one = GpuRanks::one_rank(7);
  CHECK(one.rank_of("", 3) == 7);
  CHECK(one.rule() == "--attach's rank 7: the file holds one GPU");
  CHECK_THROWS_AS(parse_gpu_rank("0=8,x"), culprit::UsageError);
  CHECK(same_host("n1.a.b", "n1"));
  CHECK_FALSE(same_host("n1", "n10"));
}

TEST_CASE("clock evidence counts only the samples inside the windows") {
  // Rank 1 runs at 1386 MHz inside [10, 20) and at 1980 MHz elsewhere (more samples there);
  // rank 0 at 1980 throughout.
  std::vector<TelemetryRow> rows;
  for (const double t : {11.0, 15.0}) {
    rows.push_back(sample(1, "SM_CLOCK", t, 1386e6));
    rows.push_back(sample(0, "SM_CLOCK", t, 1980e6));
  }
  for (const double t : {1.0, 2.0, 25.0, 26.0, 27.0}) {
    rows.push_back(sample(1, "SM_CLOCK", t, 1980e6));
    rows.push_back(sample(0, "SM_CLOCK", t, 1980e6));
  }
  rows.push_back(sample(1, "POWER", 12.0, 100.0));  // not a clock
  const auto cut = clock_evidence(rows, 1, {{10.0, 20.0}}, "in its 1 slow step of run 5");
  REQUIRE(cut);
  CHECK(cut->rank_clock_hz == 1386e6);
  CHECK(cut->peers_clock_hz == 1980e6);
  CHECK(cut->rank_samples == 2);
  CHECK(cut->peer_samples == 2);
  CHECK(cut->peers == 1);
  const WhyExplanation e = clock_throttling_of(*cut);
  CHECK(e.status == WhyStatus::kSupported);
  CHECK(e.reason ==
        "rank 1's SM clock 1386 MHz is 70.0 % of its peers' 1980 MHz in its 1 slow step of run 5");
  CHECK(e.evidence.back().numerator == "rank 1 median of 2 samples");
  CHECK(e.evidence.back().denominator == "median of 1 peers' medians (2 samples)");
  // The whole run's median says the opposite: 1980 (5 of 7 samples).
  const auto whole = clock_evidence(rows, 1, {}, "over the whole run");
  REQUIRE(whole);
  CHECK(whole->rank_clock_hz == 1980e6);
  CHECK(clock_throttling_of(*whole).status == WhyStatus::kRefuted);
  CHECK_FALSE(clock_evidence(rows, 1, {{40.0, 50.0}}, "nowhere"));  // no sample there
  CHECK_FALSE(clock_evidence(rows, 2, {}, "a rank without samples"));
}

TEST_CASE("run telemetry: fleet and per-rank averages over the steady steps only") {
  std::vector<TelemetryRow> rows = {
      sample(0, "GPU_UTIL", 5.0, 10.0),  // warm-up step 0: left out
      sample(0, "GPU_UTIL", 12.0, 90.0), sample(0, "GPU_UTIL", 22.0, 80.0),
      sample(1, "GPU_UTIL", 15.0, 99.0), sample(1, "SM_CLOCK", 31.0, 1.4e9),
      sample(1, "GPU_UTIL", 45.0, 0.0),  // after the last step: left out
  };
  const auto t = run_telemetry(rows, 9, four_steps());
  REQUIRE(t);
  CHECK(t->samples == 6);
  CHECK(t->steady_steps == 3);
  const FieldAverages* util = t->activity();
  REQUIRE(util);
  CHECK(util->field == "GPU_UTIL");
  CHECK(util->samples == 3);
  CHECK(util->fleet_mean == doctest::Approx((90.0 + 80.0 + 99.0) / 3));
  REQUIRE(util->ranks.size() == 2);
  CHECK(util->ranks[0].mean == 85.0);
  CHECK(util->ranks[1].mean == 99.0);
  CHECK(t->field("SM_CLOCK")->unit == "hz");
  CHECK_FALSE(run_telemetry({}, 9, four_steps()));

  const auto map = telemetry_map(rows, four_steps());
  REQUIRE(map);
  CHECK(map->field == "SM_CLOCK");  // preferred to GPU_UTIL when present
  CHECK(map->steps == std::vector<int>{1, 2, 3});
  CHECK(map->ranks == std::vector<int>{1});
  CHECK(std::isnan(map->values[0][0]));
  CHECK(map->values[0][2] == 1.4e9);
}

TEST_CASE("the sampled-activity line from telemetry: exact text") {
  Explanation e;
  e.culprit.found = true;
  e.culprit.rank = 1;
  e.baseline_activity.busy_share = 0.601;
  e.candidate_activity.busy_share = 0.623;
  std::vector<TelemetryRow> rows = {sample(0, "GPU_UTIL", 12.0, 80.0),
                                    sample(1, "GPU_UTIL", 15.0, 84.0)};
  e.candidate_telemetry = run_telemetry(rows, 2, four_steps());
  CHECK(culprit::report::telemetry_activity_line(e) ==
        "sampled activity (GPU telemetry, GPU_UTIL over the steady steps): baseline no utilisation "
        "telemetry (exact busy share 60.1 %); candidate fleet 82.0 % (per rank 80.0-84.0 %, rank "
        "1 84.0 %), exact busy share 62.3 % - it does not locate the cause: a GPU waiting inside "
        "a collective kernel counts as active, so the ranks that wait read as busy as the one "
        "they wait for; the decomposition above does\n");
  e.candidate_telemetry = run_telemetry({sample(0, "SM_CLOCK", 12.0, 1e9)}, 2, four_steps());
  CHECK(culprit::report::telemetry_activity_line(e).empty());  // no utilisation field
}

TEST_CASE("the why block with telemetry but no counters prints clock_throttling") {
  WhyBlock b;
  ClockEvidence c;
  c.rank = 3;
  c.rank_clock_hz = 1386e6;
  c.peers_clock_hz = 1980e6;
  c.rank_samples = 4;
  c.peer_samples = 12;
  c.peers = 3;
  c.where = "in its 4 slow steps of run 1";
  b.clock_throttling = clock_throttling_of(c);
  const std::string text = culprit::report::why_block_text(b);
  CHECK(text.find("why: no kernel counters attached to the blamed rank") == 0);
  CHECK(text.find("\n  clock_throttling  supported  rank 3's SM clock 1386 MHz is 70.0 % of its "
                  "peers' 1980 MHz in its 4 slow steps of run 1\n") != std::string::npos);
}

TEST_CASE("the why block of a CPU phase says why GPU evidence does not apply, and nothing else") {
  WhyBlock b;
  b.not_applicable = "rank 1 ran layer2 on the CPU (the configuration's backend is cpu), ...";
  b.next_capture = "ncu ...";  // never printed beside it
  CHECK(culprit::report::why_block_text(b) ==
        "why: rank 1 ran layer2 on the CPU (the configuration's backend is cpu), ...\n");
}
