#include "culprit/manifest/model_keys.hpp"

#include <limits>

namespace culprit::manifest::detail {
namespace {

using stepmodel::ModelConfig;
constexpr double kIntMax = 1'000'000'000;
constexpr double kHuge = std::numeric_limits<double>::max();

ModelKey integer(std::string_view name, int ModelConfig::*field, double max,
                 std::string_view example) {
  return ModelKey{name, field, 1, false, max, {}, example};
}

ModelKey number(std::string_view name, double ModelConfig::*field, double min, bool exclusive,
                double max, std::string_view example) {
  return ModelKey{name, field, min, exclusive, max, {}, example};
}

}  // namespace

const std::vector<ModelKey>& model_keys() {
  static const std::vector<ModelKey> keys = {
      integer("layers", &ModelConfig::layers, 100000, "layers = 4"),
      integer("microbatches", &ModelConfig::microbatches, 100000, "microbatches = 2"),
      integer("tokens", &ModelConfig::tokens, kIntMax, "tokens = 256"),
      integer("hidden", &ModelConfig::hidden, 1'000'000, "hidden = 256"),
      integer("buckets", &ModelConfig::buckets, 100000, "buckets = 2"),
      ModelKey{"overlap", &ModelConfig::overlap, 0, false, 0, {}, "overlap = false"},
      ModelKey{"dtype",
               &ModelConfig::dtype,
               0,
               false,
               0,
               {"fp32", "fp64", "fp16", "bf16"},
               "dtype = \"fp32\""},
      ModelKey{
          "compute", &ModelConfig::compute, 0, false, 0, {"gemm", "sleep"}, "compute = \"sleep\""},
      number("flops_per_s", &ModelConfig::flops_per_s, 0, true, kHuge, "flops_per_s = 2e10"),
      number("mem_bytes_per_s", &ModelConfig::mem_bytes_per_s, 0, true, kHuge,
             "mem_bytes_per_s = 1e10"),
      number("compute_scale", &ModelConfig::compute_scale, 0, true, 1000, "compute_scale = 1.15"),
      number("peak_flops", &ModelConfig::peak_flops, 0, false, kHuge, "peak_flops = 1e15"),
      number("link_bytes_per_s", &ModelConfig::link_bytes_per_s, 0, true, kHuge,
             "link_bytes_per_s = 1e10"),
      number("hop_latency_us", &ModelConfig::hop_latency_us, 0, false, 1e9, "hop_latency_us = 5"),
      number("noise_cv", &ModelConfig::noise_cv, 0, false, 10, "noise_cv = 0.02"),
      number("run_cv", &ModelConfig::run_cv, 0, false, 10, "run_cv = 0.01"),
      number("spike_prob", &ModelConfig::spike_prob, 0, false, 1, "spike_prob = 0.001"),
      number("spike_ms", &ModelConfig::spike_ms, 0, false, 1e9, "spike_ms = 50"),
      integer("threads", &ModelConfig::threads, 1024, "threads = 1"),
  };
  return keys;
}

const ModelKey* find_model_key(std::string_view name) {
  for (const auto& key : model_keys()) {
    if (key.name == name) return &key;
  }
  return nullptr;
}

std::vector<std::string> model_key_names() {
  std::vector<std::string> names;
  for (const auto& key : model_keys()) names.emplace_back(key.name);
  return names;
}

std::string describe_expected(const ModelKey& key) {
  switch (key.field.index()) {
    case 0:
      return "an integer from 1 to " + format_number(key.max);
    case 1:
      return std::string("a number ") + (key.min_exclusive ? "> " : ">= ") +
             format_number(key.min) + (key.max < kHuge ? " and <= " + format_number(key.max) : "");
    case 2:
      return "true or false";
    default: {
      std::string out = "one of ";
      for (std::size_t i = 0; i < key.choices.size(); ++i) {
        if (i > 0) out += ", ";
        out += "\"" + std::string(key.choices[i]) + "\"";
      }
      return out;
    }
  }
}

void apply(ModelConfig& model, const ModelKey& key, const ModelValue& value) {
  std::visit(
      [&](auto field) {
        using Field = std::remove_reference_t<decltype(model.*field)>;
        if constexpr (std::is_same_v<Field, int>) {
          model.*field = static_cast<int>(std::get<std::int64_t>(value));
        } else if constexpr (std::is_same_v<Field, double>) {
          model.*field = std::get<double>(value);
        } else if constexpr (std::is_same_v<Field, bool>) {
          model.*field = std::get<bool>(value);
        } else {
          model.*field = std::get<std::string>(value);
        }
      },
      key.field);
}

ModelValue get(const ModelConfig& model, const ModelKey& key) {
  return std::visit(
      [&](auto field) -> ModelValue {
        using Field = std::remove_reference_t<decltype(model.*field)>;
        if constexpr (std::is_same_v<Field, int>) {
          return std::int64_t{model.*field};
        } else {
          return model.*field;
        }
      },
      key.field);
}

Json to_json(const ModelValue& value) {
  return std::visit([](const auto& v) { return Json(v); }, value);
}

std::string to_text(const ModelValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<T, double>) {
          return format_number(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else {
          return v;
        }
      },
      value);
}

}  // namespace culprit::manifest::detail
