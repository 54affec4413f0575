#pragma once
// TOML values as write_manifest writes them (private header): strings, numbers that read back
// as the same double, and the inline tables of delays, schedule phases and other injections.

#include <string>
#include <vector>

#include "culprit/manifest/manifest.hpp"

namespace culprit::manifest::detail {

// A TOML basic string: names (imported region names) may hold quotes, backslashes, control bytes.
std::string toml_string(const std::string& text);
// The fewest fixed decimals that read back as `value` ("4.5", "2", "0.000001"); exponent form
// where no fixed form within int64 reach does. -0 is written 0.
std::string toml_number(double value);
std::string toml_value(const ModelValue& value);
std::string toml_string_array(const std::vector<std::string>& items);
// A key: bare when it is letters, digits, '_' and '-', else quoted.
std::string toml_key(const std::string& key);

std::string delay_entry(const stepmodel::DelayInjection& d);
std::string schedule_entry(const stepmodel::SchedulePhase& p);
// `inject = { delays = [ ... ], ... }`, one entry a line; "" when nothing is injected.
std::string inject_line(const InjectionSpec& inject);
// instrument and step_rule keys of a [baseline] / [versions.NAME] table ("" when unset).
std::string instrument_lines(const InstrumentSpec& spec);

}  // namespace culprit::manifest::detail
