#pragma once
// The one unit table of the counter and telemetry readers: any spelling and prefix ncu, DCGM or
// nvidia-smi writes (ns ... s, byte ... Tbyte, hz ... Ghz, cycle/second, %, W, MHz) -> a
// canonical unit and the factor that carries a value into it. Canonical units: ns (time), byte,
// byte/s, hz (frequency; cycle/second is hz), cycle, %, W, C; anything else is kept as written
// with factor 1 (sector, warp, inst, register/thread, ...).

#include <optional>
#include <string>
#include <string_view>

namespace culprit::importers {

struct CanonicalUnit {
  std::string unit;     // canonical spelling, or the input as written when unknown
  double factor = 1.0;  // value_in_canonical = value_as_written * factor
  bool known = false;   // the unit was recognised by the table
};

CanonicalUnit canonical_unit(std::string_view unit);

// A number as counter files write it: optional sign, digits with or without thousands
// separators ("9,589,248"), a fraction, an exponent; surrounding spaces ignored. nullopt for
// n/a, N/A, [N/A], empty or any other text.
std::optional<double> parse_number(std::string_view text);

}  // namespace culprit::importers
