#pragma once
// The [*.model] keys: one row per stepmodel::ModelConfig field, with its type and valid range.
// Parsing, validation, "did you mean" and labels all read this one table, and so does bisect when
// it checks the model file a git build writes. (The resolved JSON is stepmodel::to_json.)

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "culprit/common/json.hpp"
#include "culprit/manifest/manifest.hpp"
#include "stepmodel/config.hpp"

namespace culprit::manifest::detail {

struct ModelKey {
  std::string_view name;
  std::variant<int stepmodel::ModelConfig::*, double stepmodel::ModelConfig::*,
               bool stepmodel::ModelConfig::*, std::string stepmodel::ModelConfig::*>
      field;
  double min = 0;  // numbers: valid range [min, max], or (min, max] when min_exclusive
  bool min_exclusive = false;
  double max = 0;
  std::vector<std::string_view> choices;  // strings: the valid values
  std::string_view example;               // a valid assignment, shown in messages
};

const std::vector<ModelKey>& model_keys();
const ModelKey* find_model_key(std::string_view name);
std::vector<std::string> model_key_names();

// "an integer >= 1", "a number > 0", "one of \"gemm\", \"sleep\"", "true or false".
std::string describe_expected(const ModelKey& key);

void apply(stepmodel::ModelConfig& model, const ModelKey& key, const ModelValue& value);
ModelValue get(const stepmodel::ModelConfig& model, const ModelKey& key);

Json to_json(const ModelValue& value);
std::string to_text(const ModelValue& value);  // for labels: 512, 1.15, true, sleep

}  // namespace culprit::manifest::detail
