#include "parse_inject.hpp"

namespace culprit::manifest::detail {
namespace {

// An inject entry list: an array of tables ([[x.inject.delays]] or [{...}, {...}]), or one table.
template <typename Parse>
void each_entry(TomlReader& reader, const toml::table& inject, std::string_view key,
                const std::string& path, Parse parse) {
  const toml::node* node = inject.get(key);
  if (node == nullptr) return;
  const std::string list_path = child_path(path, key);
  if (node->is_table()) {
    parse(*node->as_table(), list_path);
    return;
  }
  const toml::array* items = node->as_array();
  if (items == nullptr) {
    reader.problem(reader.at(*node), list_path, "an array of tables", describe(*node),
                   "write for example " + std::string(key) + " = [{ rank = 1, ... }]");
    return;
  }
  for (std::size_t i = 0; i < items->size(); ++i) {
    const toml::node& item = *items->get(i);
    if (!item.is_table()) {
      reader.problem(reader.at(item), item_path(list_path, i), "a table", describe(item),
                     "write each entry as { rank = 1, ... }");
      continue;
    }
    parse(*item.as_table(), item_path(list_path, i));
  }
}

void read_rank(TomlReader& reader, const toml::table& entry, const std::string& path, int& rank) {
  if (const toml::node* node =
          reader.required(entry, "rank", path, "a rank (an integer >= 0)", "rank = 1")) {
    if (auto value = reader.integer(*node, child_path(path, "rank"), 0, kMaxIndex, "rank = 1")) {
      rank = static_cast<int>(*value);
    }
  }
}

void read_number(TomlReader& reader, const toml::table& entry, std::string_view key,
                 const std::string& path, double& target, double min, bool exclusive, double max,
                 std::string_view example) {
  if (const toml::node* node = entry.get(key)) {
    if (auto value =
            reader.number(*node, child_path(path, key), min, exclusive, max, false, example)) {
      target = *value;
    }
  }
}

// steps = N (one step) or steps = [first, last]; absolute step indices, warm-up included.
void read_delay_steps(TomlReader& reader, const toml::node& node, const std::string& path,
                      stepmodel::DelayInjection& delay) {
  const std::string expected = "a step index N or a range [first, last] (integers >= 0)";
  if (node.is_integer()) {
    if (auto step = reader.integer(node, path, 0, kMaxIndex, "steps = 5")) {
      delay.step_first = delay.step_last = static_cast<int>(*step);
    }
    return;
  }
  const toml::array* range = node.as_array();
  if (range == nullptr || range->size() != 2) {
    reader.problem(reader.at(node), path, expected, describe(node),
                   "write for example steps = [3, 8]");
    return;
  }
  auto first = reader.integer(*range->get(0), item_path(path, 0), 0, kMaxIndex, "steps = [3, 8]");
  auto last = reader.integer(*range->get(1), item_path(path, 1), 0, kMaxIndex, "steps = [3, 8]");
  if (!first || !last) return;
  if (*first > *last) {
    reader.problem(reader.at(node), path, "first <= last",
                   "[" + std::to_string(*first) + ", " + std::to_string(*last) + "]",
                   "swap the two step indices");
    return;
  }
  delay.step_first = static_cast<int>(*first);
  delay.step_last = static_cast<int>(*last);
}

}  // namespace

std::optional<Located<stepmodel::DelayInjection>> parse_delay(TomlReader& reader,
                                                              const toml::node& node,
                                                              const std::string& path,
                                                              bool any_phase) {
  const toml::table* entry = node.as_table();
  if (entry == nullptr) {
    reader.problem(reader.at(node), path, "a delay table { rank, phase, ms, ... }", describe(node),
                   "write for example { rank = 1, phase = \"gemm.fwd\", ms = 40 }");
    return std::nullopt;
  }
  reader.only_keys(
      *entry, path,
      {"rank", "phase", "layer", "microbatch", "steps", "step_first", "step_last", "ms", "mode"});
  stepmodel::DelayInjection delay;
  const toml::node* rank = entry->get("rank");
  if (rank != nullptr && rank->is_string()) {
    // rank = "all": the same delay on every rank, a typical shift rather than a straggler.
    if (reader.text(*rank, child_path(path, "rank"), {"all"}, "rank = \"all\"")) {
      delay.rank = stepmodel::kEveryRank;
    }
  } else {
    read_rank(reader, *entry, path, delay.rank);
  }
  if (const toml::node* phase =
          reader.required(*entry, "phase", path, "a phase name", "phase = \"gemm.fwd\"")) {
    const std::vector<std::string> none;
    const std::vector<std::string> phases = any_phase ? none : reader.delay_phases();
    // The example is one of this step's phases (a measured schedule has no gemm.fwd).
    if (auto value =
            reader.text(*phase, child_path(path, "phase"), phases,
                        "phase = \"" + (phases.empty() ? "gemm.fwd" : phases.front()) + "\"")) {
      if (std::any_of(value->begin(), value->end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
        reader.problem(reader.at(*phase), child_path(path, "phase"),
                       "a region name without control characters", "a name with one",
                       "write the region's name as the program records it, e.g. \"layer2\"");
      } else {
        delay.phase = *value;
      }
    }
  }
  reader.read(*entry, "layer", path, delay.layer, -1, kMaxIndex, "layer = 1");
  reader.read(*entry, "microbatch", path, delay.microbatch, -1, kMaxIndex, "microbatch = 0");
  if (const toml::node* steps = entry->get("steps")) {
    if (entry->contains("step_first") || entry->contains("step_last")) {
      reader.problem(reader.at(*steps), child_path(path, "steps"),
                     "either steps or step_first/step_last", "both",
                     "keep only steps = [first, last]");
    }
    read_delay_steps(reader, *steps, child_path(path, "steps"), delay);
  }
  reader.read(*entry, "step_first", path, delay.step_first, -1, kMaxIndex, "step_first = 3");
  reader.read(*entry, "step_last", path, delay.step_last, -1, kMaxIndex, "step_last = 8");
  if (const toml::node* ms = reader.required(
          *entry, "ms", path, "the delay in milliseconds (a number >= 0)", "ms = 40")) {
    if (auto value = reader.number(*ms, child_path(path, "ms"), 0, false, 1e7, false, "ms = 40")) {
      delay.ms = *value;
    }
  }
  reader.read(*entry, "mode", path, delay.mode, {"sleep", "spin", "gpu"}, "mode = \"spin\"");
  return Located<stepmodel::DelayInjection>{delay, path, reader.at(node)};
}

InjectionSpec parse_inject(TomlReader& reader, const toml::node& node, const std::string& path,
                           bool any_phase) {
  InjectionSpec spec;
  const toml::table* inject = node.as_table();
  if (inject == nullptr) {
    reader.problem(reader.at(node), path, "a table of delays, slowdowns, clock_skews, faults",
                   describe(node), "write [" + path + "] with delays = [{ ... }]");
    return spec;
  }
  reader.only_keys(*inject, path, {"delays", "slowdowns", "clock_skews", "faults"});

  each_entry(reader, *inject, "delays", path, [&](const toml::table& entry, const std::string& p) {
    if (auto delay = parse_delay(reader, entry, p, any_phase)) spec.delays.push_back(*delay);
  });
  each_entry(
      reader, *inject, "slowdowns", path, [&](const toml::table& entry, const std::string& p) {
        reader.only_keys(entry, p, {"rank", "factor"});
        stepmodel::SlowdownInjection slowdown;
        read_rank(reader, entry, p, slowdown.rank);
        if (reader.required(entry, "factor", p, "a factor > 0", "factor = 1.5")) {
          read_number(reader, entry, "factor", p, slowdown.factor, 0, true, 1000, "factor = 1.5");
        }
        spec.slowdowns.push_back({slowdown, p, reader.at(entry)});
      });
  each_entry(reader, *inject, "clock_skews", path,
             [&](const toml::table& entry, const std::string& p) {
               reader.only_keys(entry, p, {"rank", "offset_ms", "drift_ppm"});
               stepmodel::ClockSkewInjection skew;
               read_rank(reader, entry, p, skew.rank);
               read_number(reader, entry, "offset_ms", p, skew.offset_ms, -1e9, false, 1e9,
                           "offset_ms = 500");
               read_number(reader, entry, "drift_ppm", p, skew.drift_ppm, -1e6, false, 1e6,
                           "drift_ppm = 100");
               spec.clock_skews.push_back({skew, p, reader.at(entry)});
             });
  each_entry(reader, *inject, "faults", path, [&](const toml::table& entry, const std::string& p) {
    reader.only_keys(entry, p, {"rank", "step", "kind"});
    stepmodel::FaultInjection fault;
    read_rank(reader, entry, p, fault.rank);
    if (const toml::node* step = reader.required(entry, "step", p, "a step index", "step = 3")) {
      if (auto value = reader.integer(*step, child_path(p, "step"), 0, kMaxIndex, "step = 3")) {
        fault.step = static_cast<int>(*value);
      }
    }
    reader.read(entry, "kind", p, fault.kind, {"abort", "hang"}, "kind = \"abort\"");
    spec.faults.push_back({fault, p, reader.at(entry)});
  });
  return spec;
}

}  // namespace culprit::manifest::detail
