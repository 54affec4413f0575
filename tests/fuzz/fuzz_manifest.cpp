// libFuzzer target: the manifest parser and the planner. Any input may be refused with a
// culprit::UsageError (a message for the user); anything else escaping (another exception, a
// crash, a leak, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "culprit/errors.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/planner.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto manifest = culprit::manifest::parse_manifest(text, "fuzz.toml");
    const auto plan = culprit::manifest::make_plan(manifest, 4);
    if (!plan.runs.empty()) {
      (void)culprit::manifest::run_config_json(plan, plan.runs.front());
    }
  } catch (const culprit::UsageError&) {
  }
  return 0;
}
