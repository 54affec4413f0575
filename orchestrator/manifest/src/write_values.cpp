#include "write_values.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <variant>

namespace culprit::manifest::detail {
namespace {

// Below 2^53 every integer is a double exactly, and the text is a TOML integer the reader takes.
constexpr double kExactIntegers = 9007199254740992.0;

std::string steps_keys(const stepmodel::DelayInjection& d) {
  if (d.step_first >= 0 && d.step_first == d.step_last) {
    return ", steps = " + std::to_string(d.step_first);
  }
  if (d.step_first >= 0 && d.step_last >= 0) {
    return ", steps = [" + std::to_string(d.step_first) + ", " + std::to_string(d.step_last) + "]";
  }
  std::string out;
  if (d.step_first >= 0) out += ", step_first = " + std::to_string(d.step_first);
  if (d.step_last >= 0) out += ", step_last = " + std::to_string(d.step_last);
  return out;
}

template <typename T, typename Entry>
std::string entries(const std::string& key, const std::vector<Located<T>>& items, Entry entry) {
  std::string out = key + " = [\n";
  for (const auto& item : items) out += "  " + entry(item.value) + ",\n";
  return out + "]";
}

}  // namespace

std::string toml_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04X}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string toml_number(double value) {
  if (value == 0) return "0";
  if (std::abs(value) < kExactIntegers) {
    for (int decimals = 0; decimals <= 17; ++decimals) {
      std::string text = fmt::format("{:.{}f}", value, decimals);
      if (std::strtod(text.c_str(), nullptr) == value) return text;
    }
  }
  std::string text = fmt::format("{}", value);  // shortest form that reads back
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

std::string toml_value(const ModelValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::int64_t>) return std::to_string(v);
        if constexpr (std::is_same_v<T, double>) return toml_number(v);
        if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
        if constexpr (std::is_same_v<T, std::string>) return toml_string(v);
      },
      value);
}

std::string toml_string_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + toml_string(items[i]);
  return out + "]";
}

std::string toml_key(const std::string& key) {
  const bool bare = !key.empty() && key.find_first_not_of(
                                        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                        "0123456789_-") == std::string::npos;
  return bare ? key : toml_string(key);
}

std::string delay_entry(const stepmodel::DelayInjection& d) {
  std::string out = "{ rank = ";
  out += d.rank == stepmodel::kEveryRank ? "\"all\"" : std::to_string(d.rank);
  out += ", phase = " + toml_string(d.phase);
  if (d.layer >= 0) out += ", layer = " + std::to_string(d.layer);
  if (d.microbatch >= 0) out += ", microbatch = " + std::to_string(d.microbatch);
  out += steps_keys(d);
  return out + ", ms = " + toml_number(d.ms) + ", mode = " + toml_string(d.mode) + " }";
}

std::string schedule_entry(const stepmodel::SchedulePhase& p) {
  std::string out = "{ name = " + toml_string(p.name);
  if (p.collective) {
    out += ", collective = true, seq = " + std::to_string(p.seq) +
           ", bytes = " + std::to_string(p.bytes);
    if (p.async) out += ", async = true";
  }
  if (p.layer >= 0) out += ", layer = " + std::to_string(p.layer);
  if (p.microbatch >= 0) out += ", microbatch = " + std::to_string(p.microbatch);
  out += ", ms = " + toml_number(p.ms);
  if (p.gap_ms > 0) out += ", gap_ms = " + toml_number(p.gap_ms);
  if (p.waits) out += ", waits = true";
  return out + " }";
}

std::string inject_line(const InjectionSpec& inject) {
  std::vector<std::string> parts;
  if (!inject.delays.empty()) parts.push_back(entries("delays", inject.delays, delay_entry));
  if (!inject.slowdowns.empty()) {
    parts.push_back(entries("slowdowns", inject.slowdowns, [](const auto& s) {
      return "{ rank = " + std::to_string(s.rank) + ", factor = " + toml_number(s.factor) + " }";
    }));
  }
  if (!inject.clock_skews.empty()) {
    parts.push_back(entries("clock_skews", inject.clock_skews, [](const auto& s) {
      return "{ rank = " + std::to_string(s.rank) + ", offset_ms = " + toml_number(s.offset_ms) +
             ", drift_ppm = " + toml_number(s.drift_ppm) + " }";
    }));
  }
  if (!inject.faults.empty()) {
    parts.push_back(entries("faults", inject.faults, [](const auto& f) {
      return "{ rank = " + std::to_string(f.rank) + ", step = " + std::to_string(f.step) +
             ", kind = " + toml_string(f.kind) + " }";
    }));
  }
  if (parts.empty()) return "";
  std::string out = "inject = { ";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + " }\n";
}

std::string instrument_lines(const InstrumentSpec& spec) {
  std::string out;
  if (!spec.instrument.empty()) out += "instrument = " + toml_string(spec.instrument) + "\n";
  if (spec.step_rule) {
    const stepmodel::StepRule defaults;
    out += "step_rule = ";
    out += spec.step_rule->call == defaults.call && spec.step_rule->every == defaults.every
               ? std::string("\"pcontrol\"")
               : "{ call = " + toml_string(spec.step_rule->call) +
                     ", every = " + std::to_string(spec.step_rule->every) + " }";
    out += "\n";
  }
  return out;
}

}  // namespace culprit::manifest::detail
