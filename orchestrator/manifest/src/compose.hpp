#pragma once
// One configuration = the baseline with a selection of factor levels applied. Composition
// validates the result (delay ranks against this configuration's rank count, layers, steps,
// ...) and produces its canonical resolved JSON and hash.

#include <optional>
#include <string>
#include <vector>

#include "culprit/common/json.hpp"
#include "culprit/manifest/manifest.hpp"
#include "diagnostics.hpp"

namespace culprit::manifest::detail {

struct Selection {
  std::string label = "baseline";
  std::string factor;  // "" for the baseline
  Json level;          // null for the baseline
  std::string origin;  // where the levels come from, for messages ("vary[0].levels[1]")
  std::optional<std::string> version;
  std::optional<Located<int>> ranks;
  std::vector<ModelSetting> model;
  std::vector<Located<stepmodel::DelayInjection>> delays;
};

// Problems go to `diagnostics`; the result is only meaningful when none were added.
Configuration compose(const Manifest& manifest, const Selection& selection,
                      Diagnostics& diagnostics);

std::string delay_text(const stepmodel::DelayInjection& delay);  // rank1:gemm.fwd:l1:40ms:spin

}  // namespace culprit::manifest::detail
