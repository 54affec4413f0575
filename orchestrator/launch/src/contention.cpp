#include "contention.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "culprit/storage/records.hpp"

#include <algorithm>

namespace culprit::launch::detail {

MachineSample sample_machine() {
  MachineSample s;
  double loads[1] = {0};
  if (getloadavg(loads, 1) == 1) s.load1 = loads[0];
  std::ifstream stat("/proc/stat");
  std::string cpu;
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal &&
      cpu == "cpu") {
    s.busy_ticks = user + nice + system + irq + softirq + steal;
    s.total_ticks = s.busy_ticks + idle + iowait;
  }
  return s;
}

void record_contention(storage::Db& store, std::int64_t run_id, const MachineSample& before,
                       const MachineSample& after, const ProcessResult& process) {
  std::vector<std::pair<std::string, std::string>> facts;
  const auto put = [&facts](const char* key, std::string value) {
    facts.emplace_back(key, std::move(value));
  };
  if (before.load1 >= 0) put("contention.load1_start", fmt::format("{:.2f}", before.load1));
  if (after.load1 >= 0) put("contention.load1_end", fmt::format("{:.2f}", after.load1));
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  put("contention.cores", std::to_string(cores));
  if (process.cpu_s >= 0 && process.wall_s > 0) {
    put("contention.cpu_s", fmt::format("{:.3f}", process.cpu_s));
    put("contention.cpu_per_wall", fmt::format("{:.3f}", process.cpu_s / process.wall_s));
  }
  if (process.involuntary_switches >= 0) {
    put("contention.involuntary_switches", std::to_string(process.involuntary_switches));
  }
  const long long busy = after.busy_ticks - before.busy_ticks;
  const long long total = after.total_ticks - before.total_ticks;
  const long ticks_per_s = sysconf(_SC_CLK_TCK);
  if (before.busy_ticks >= 0 && after.busy_ticks >= 0 && total > 0 && ticks_per_s > 0 &&
      process.cpu_s >= 0) {
    // Busy CPU of the whole machine during the run, less the job's own: what others took.
    const double others =
        static_cast<double>(busy) / static_cast<double>(ticks_per_s) - process.cpu_s;
    const double capacity = static_cast<double>(total) / static_cast<double>(ticks_per_s);
    put("contention.other_cpu_share", fmt::format("{:.3f}", std::max(0.0, others / capacity)));
  }
  storage::put_job_provenance(store, run_id, facts);
}

}  // namespace culprit::launch::detail
