// libFuzzer target: run-file ingest. The input is written as a run file and ingested into one
// results store inside a transaction that is rolled back (the store stays fresh): ATTACH and
// format check, copy of every table, loading the run and deriving its step times — the path
// `culprit run` takes for every run file a workload leaves. A bad file may be refused with an
// exception; a crash, a leak or a hang is a bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>

#include "culprit/analysis/step_times.hpp"
#include "culprit/storage/ingest.hpp"
#include "culprit/storage/records.hpp"
#include "culprit/storage/run_data.hpp"
#include "culprit/storage/store.hpp"
#include "scratch_dir.hpp"

namespace {

namespace storage = culprit::storage;

struct Fixture {
  std::string dir;
  std::string run_file;
  std::unique_ptr<storage::Db> store;
  std::int64_t run_id = 0;
};

Fixture& fixture() {
  static Fixture* f = [] {
    auto* made = new Fixture;
    std::string pattern = culprit::fuzz::scratch_dir() + "/culprit-fuzz-ingest-XXXXXX";
    const char* dir = mkdtemp(pattern.data());
    if (dir == nullptr) std::abort();
    made->dir = dir;
    made->run_file = made->dir + "/run.db";
    made->store = storage::open_store(made->dir + "/store.db");
    storage::ExperimentRecord e;
    e.name = "fuzz";
    e.manifest_path = "fuzz.toml";
    e.manifest_text = "";
    e.manifest_hash = "0";
    const auto experiment = storage::insert_experiment(*made->store, e);
    storage::ConfigurationRecord c;
    c.label = "baseline";
    c.backend = "cpu";
    c.ranks = 2;
    c.resolved_json = "{}";
    c.config_hash = "0";
    const auto config = storage::ensure_configuration(*made->store, experiment, c);
    made->run_id = storage::ensure_run(*made->store, experiment, {config, 0}, 0, 1, "").id;
    std::atexit([] { std::filesystem::remove_all(fixture().dir); });
    return made;
  }();
  return *f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Fixture& f = fixture();
  {
    std::FILE* out = std::fopen(f.run_file.c_str(), "wb");
    if (out == nullptr) std::abort();
    if (size > 0 && std::fwrite(data, 1, size, out) != size) std::abort();
    std::fclose(out);
  }
  try {
    storage::AttachedRunFile file(*f.store, f.run_file);
    storage::Transaction tx(*f.store);  // never committed: rolled back before the detach
    storage::copy_run(*f.store, &file, f.run_id);
    const auto run = storage::load_run(*f.store, f.run_id);
    const auto steps = culprit::analysis::step_times(run);
    (void)culprit::analysis::median_step_ms(steps);
  } catch (const std::exception&) {
  }
  return 0;
}
