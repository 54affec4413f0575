#include "parse_schedule.hpp"

#include <set>
#include <utility>

namespace culprit::manifest::detail {
namespace {

constexpr std::size_t kMaxPhases = 100'000;

void read_ms(TomlReader& reader, const toml::table& entry, std::string_view key,
             const std::string& path, double& target) {
  if (const toml::node* node = entry.get(key)) {
    if (auto value = reader.number(*node, child_path(path, key), 0, false, 1e7, false,
                                   std::string(key) + " = 4.5")) {
      target = *value;
    }
  }
}

void read_flag(TomlReader& reader, const toml::table& entry, std::string_view key,
               const std::string& path, bool& target) {
  if (const toml::node* node = entry.get(key)) {
    if (auto value = reader.boolean(*node, child_path(path, key), std::string(key) + " = true")) {
      target = *value;
    }
  }
}

stepmodel::SchedulePhase parse_phase(TomlReader& reader, const toml::table& entry,
                                     const std::string& path) {
  reader.only_keys(entry, path,
                   {"name", "collective", "layer", "microbatch", "seq", "ms", "gap_ms", "bytes",
                    "async", "waits"});
  stepmodel::SchedulePhase phase;
  if (const toml::node* name =
          reader.required(entry, "name", path, "the phase's event name", "name = \"layer2\"")) {
    if (auto value = reader.text(*name, child_path(path, "name"), {}, "name = \"layer2\"")) {
      if (*value == "step") {
        reader.problem(reader.at(*name), child_path(path, "name"), "a phase name other than step",
                       "\"step\"", "\"step\" is the whole step's event; name the phase");
      }
      phase.name = *value;
    }
  }
  read_flag(reader, entry, "collective", path, phase.collective);
  reader.read(entry, "layer", path, phase.layer, -1, kMaxIndex, "layer = 0");
  reader.read(entry, "microbatch", path, phase.microbatch, -1, kMaxIndex, "microbatch = 0");
  reader.read(entry, "seq", path, phase.seq, -1, kMaxIndex, "seq = 0");
  read_ms(reader, entry, "ms", path, phase.ms);
  read_ms(reader, entry, "gap_ms", path, phase.gap_ms);
  if (const toml::node* bytes = entry.get("bytes")) {
    if (auto value = reader.integer(*bytes, child_path(path, "bytes"), 0, std::int64_t{1} << 40,
                                    "bytes = 33554432")) {
      phase.bytes = *value;
    }
  }
  read_flag(reader, entry, "async", path, phase.async);
  read_flag(reader, entry, "waits", path, phase.waits);
  if (phase.collective && phase.seq < 0) {
    reader.problem(reader.at(entry), child_path(path, "seq"),
                   "a sequence number >= 0 for a collective", "none",
                   "add seq = N (the collective's order within the step, the same on every rank)");
  }
  if (!phase.collective && (phase.async || phase.bytes > 0 || phase.seq >= 0)) {
    reader.problem(reader.at(entry), path, "seq, bytes and async only on a collective",
                   "a compute phase with them", "add collective = true or remove those keys");
  }
  return phase;
}

}  // namespace

std::vector<stepmodel::SchedulePhase> parse_schedule(TomlReader& reader, const toml::node& node,
                                                     const std::string& path) {
  std::vector<stepmodel::SchedulePhase> schedule;
  const toml::array* items = node.as_array();
  if (items == nullptr || items->empty()) {
    reader.problem(reader.at(node), path, "a non-empty array of phase tables", describe(node),
                   "write schedule = [{ name = \"layer0\", ms = 4.5 }, ...]");
    return schedule;
  }
  if (items->size() > kMaxPhases) {
    reader.problem(reader.at(node), path,
                   "at most " + std::to_string(kMaxPhases) + " phases in one step",
                   std::to_string(items->size()) + " phases", "merge phases into fewer regions");
    return schedule;
  }
  std::set<std::pair<int, std::string>> collectives;
  for (std::size_t i = 0; i < items->size(); ++i) {
    const toml::node& item = *items->get(i);
    const std::string p = item_path(path, i);
    if (!item.is_table()) {
      reader.problem(reader.at(item), p, "a table", describe(item),
                     "write each phase as { name = \"layer0\", ms = 4.5 }");
      continue;
    }
    stepmodel::SchedulePhase phase = parse_phase(reader, *item.as_table(), p);
    if (phase.collective && !collectives.insert({phase.seq, phase.name}).second) {
      reader.problem(reader.at(item), child_path(p, "seq"),
                     "one entry per collective (name, seq) in a step",
                     "seq " + std::to_string(phase.seq) + " again",
                     "give each collective of the step its own seq");
    }
    schedule.push_back(std::move(phase));
  }
  return schedule;
}

}  // namespace culprit::manifest::detail
