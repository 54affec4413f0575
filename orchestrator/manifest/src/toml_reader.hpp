#pragma once
// Typed reads from a toml++ tree that report problems with the file, line, column and the full
// key instead of throwing, so one pass finds every mistake in a manifest.

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/manifest/model_keys.hpp"
#include "diagnostics.hpp"

namespace culprit::manifest::detail {

// The largest rank, step, layer or microbatch index a manifest may name (an [inject] entry, a
// [schedule] phase).
inline constexpr std::int64_t kMaxIndex = 1'000'000;

std::string child_path(const std::string& parent, std::string_view key);
std::string item_path(const std::string& parent, std::size_t index);

class TomlReader {
 public:
  TomlReader(std::string file, Diagnostics& diagnostics)
      : file_(std::move(file)), diagnostics_(diagnostics) {}

  SourceLocation at(const toml::node& node) const;
  SourceLocation at(const toml::key& key) const;
  Diagnostics& diagnostics() { return diagnostics_; }

  // Reports every key of `table` that is not in `allowed`, with a "did you mean".
  void only_keys(const toml::table& table, const std::string& path,
                 const std::vector<std::string>& allowed);

  // Reports a missing key at the table's location; returns the node or nullptr.
  const toml::node* required(const toml::table& table, std::string_view key,
                             const std::string& path, std::string_view expected,
                             std::string_view example);

  std::optional<std::int64_t> integer(const toml::node& node, const std::string& path,
                                      std::int64_t min, std::int64_t max, std::string_view example);
  std::optional<double> number(const toml::node& node, const std::string& path, double min,
                               bool min_exclusive, double max, bool max_exclusive,
                               std::string_view example);
  std::optional<bool> boolean(const toml::node& node, const std::string& path,
                              std::string_view example);
  // `choices` empty: any non-empty string.
  std::optional<std::string> text(const toml::node& node, const std::string& path,
                                  const std::vector<std::string>& choices,
                                  std::string_view example);
  // An argv array: non-empty, strings only, first element non-empty. Never a shell string.
  std::optional<std::vector<std::string>> argv(const toml::node& node, const std::string& path,
                                               std::string_view example);
  std::optional<ModelValue> model_value(const toml::node& node, const ModelKey& key,
                                        const std::string& path);

  // Shorthands that read `table[key]` into `target` when the key is present.
  void read(const toml::table& table, std::string_view key, const std::string& parent, int& target,
            std::int64_t min, std::int64_t max, std::string_view example);
  void read(const toml::table& table, std::string_view key, const std::string& parent,
            std::string& target, const std::vector<std::string>& choices, std::string_view example);

  // The phase names a delay may target: the GEMM step's five, or a measured schedule's names
  // once [baseline.model] gave one (parse order: baseline before versions and vary).
  const std::vector<std::string>& delay_phases() const { return delay_phases_; }
  void set_delay_phases(std::vector<std::string> names) { delay_phases_ = std::move(names); }

  void problem(const SourceLocation& where, std::string_view key, std::string_view expected,
               std::string_view got, std::string_view todo) {
    diagnostics_.add(where, key, expected, got, todo);
  }

 private:
  std::string file_;
  Diagnostics& diagnostics_;
  std::vector<std::string> delay_phases_ = {"gemm.fwd", "gemm.bwd.dgrad", "gemm.bwd.wgrad",
                                            "allreduce", "optimizer"};
};

// "integer 3", "string \"abc\"", "a table", ... for the "got" part of a message.
std::string describe(const toml::node& node);

}  // namespace culprit::manifest::detail
