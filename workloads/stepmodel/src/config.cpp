#include <simdjson.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "stepmodel/config.hpp"
#include "stepmodel/pmpi_calls.hpp"

namespace stepmodel {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

[[noreturn]] void fail(const std::string& key, const std::string& why) {
  throw std::invalid_argument("resolved configuration: '" + key + "': " + why);
}

bool has(const object& obj, const char* key) {
  return !obj.at_key(key).error();
}

double number(const object& obj, const char* key, const std::string& path, double fallback) {
  auto value = obj.at_key(key);
  if (value.error()) return fallback;
  double result = 0;
  if (value.get_double().get(result)) {
    std::int64_t integer = 0;
    if (value.get_int64().get(integer)) fail(path + key, "expected a number");
    result = static_cast<double>(integer);
  }
  return result;
}

int integer(const object& obj, const char* key, const std::string& path, int fallback) {
  auto value = obj.at_key(key);
  if (value.error()) return fallback;
  std::int64_t result = 0;
  if (value.get_int64().get(result)) fail(path + key, "expected an integer");
  return static_cast<int>(result);
}

bool boolean(const object& obj, const char* key, const std::string& path, bool fallback) {
  auto value = obj.at_key(key);
  if (value.error()) return fallback;
  bool result = false;
  if (value.get_bool().get(result)) fail(path + key, "expected true or false");
  return result;
}

std::string text(const object& obj, const char* key, const std::string& path,
                 const std::string& fallback) {
  auto value = obj.at_key(key);
  if (value.error()) return fallback;
  std::string_view result;
  if (value.get_string().get(result)) fail(path + key, "expected a string");
  return std::string(result);
}

void require_positive(double value, const std::string& key) {
  if (!(value > 0)) fail(key, "must be > 0");
}

std::vector<SchedulePhase> parse_schedule(const object& model) {
  simdjson::dom::array items;
  if (model["schedule"].get_array().get(items)) fail("model.schedule", "expected an array");
  std::vector<SchedulePhase> schedule;
  for (element item : items) {
    const std::string p = "model.schedule[" + std::to_string(schedule.size()) + "].";
    object e;
    if (item.get_object().get(e)) fail("model.schedule", "expected objects");
    SchedulePhase s;
    s.name = text(e, "name", p, s.name);
    s.collective = boolean(e, "collective", p, s.collective);
    s.layer = integer(e, "layer", p, s.layer);
    s.microbatch = integer(e, "microbatch", p, s.microbatch);
    s.seq = integer(e, "seq", p, s.seq);
    s.ms = number(e, "ms", p, s.ms);
    s.gap_ms = number(e, "gap_ms", p, s.gap_ms);
    s.bytes = static_cast<std::int64_t>(number(e, "bytes", p, 0));
    s.async = boolean(e, "async", p, s.async);
    s.waits = boolean(e, "waits", p, s.waits);
    if (s.name.empty() || s.name == "step") fail(p + "name", "needs an event name other than step");
    if (s.ms < 0 || s.gap_ms < 0 || s.bytes < 0) fail(p + "ms", "durations and bytes must be >= 0");
    if (s.collective && s.seq < 0) fail(p + "seq", "a collective needs a sequence number >= 0");
    schedule.push_back(std::move(s));
  }
  return schedule;
}

ModelConfig parse_model(const object& obj) {
  ModelConfig m;
  const std::string p = "model.";
  m.layers = integer(obj, "layers", p, m.layers);
  m.microbatches = integer(obj, "microbatches", p, m.microbatches);
  m.tokens = integer(obj, "tokens", p, m.tokens);
  m.hidden = integer(obj, "hidden", p, m.hidden);
  m.buckets = integer(obj, "buckets", p, m.buckets);
  m.overlap = boolean(obj, "overlap", p, m.overlap);
  m.dtype = text(obj, "dtype", p, m.dtype);
  m.compute = text(obj, "compute", p, m.compute);
  m.flops_per_s = number(obj, "flops_per_s", p, m.flops_per_s);
  m.mem_bytes_per_s = number(obj, "mem_bytes_per_s", p, m.mem_bytes_per_s);
  m.compute_scale = number(obj, "compute_scale", p, m.compute_scale);
  m.peak_flops = number(obj, "peak_flops", p, m.peak_flops);
  m.link_bytes_per_s = number(obj, "link_bytes_per_s", p, m.link_bytes_per_s);
  m.hop_latency_us = number(obj, "hop_latency_us", p, m.hop_latency_us);
  m.noise_cv = number(obj, "noise_cv", p, m.noise_cv);
  m.run_cv = number(obj, "run_cv", p, m.run_cv);
  m.spike_prob = number(obj, "spike_prob", p, m.spike_prob);
  m.spike_ms = number(obj, "spike_ms", p, m.spike_ms);
  m.threads = integer(obj, "threads", p, m.threads);
  for (auto [value, key] :
       {std::pair{m.layers, "layers"}, std::pair{m.microbatches, "microbatches"},
        std::pair{m.tokens, "tokens"}, std::pair{m.hidden, "hidden"},
        std::pair{m.buckets, "buckets"}, std::pair{m.threads, "threads"}}) {
    if (value < 1) fail(p + key, "must be >= 1");
  }
  if (m.buckets > m.layers) fail(p + "buckets", "cannot exceed model.layers");
  if (m.dtype != "fp32" && m.dtype != "fp64" && m.dtype != "fp16" && m.dtype != "bf16") {
    fail(p + "dtype", "expected fp32, fp64, fp16 or bf16");
  }
  if (m.compute != "gemm" && m.compute != "sleep") fail(p + "compute", "expected gemm or sleep");
  require_positive(m.flops_per_s, p + "flops_per_s");
  require_positive(m.mem_bytes_per_s, p + "mem_bytes_per_s");
  require_positive(m.compute_scale, p + "compute_scale");
  require_positive(m.link_bytes_per_s, p + "link_bytes_per_s");
  if (m.peak_flops < 0) fail(p + "peak_flops", "must be >= 0");
  if (m.hop_latency_us < 0 || m.noise_cv < 0 || m.run_cv < 0 || m.spike_ms < 0) {
    fail(p + "noise", "latency, noise and spike values must be >= 0");
  }
  if (m.spike_prob < 0 || m.spike_prob > 1) fail(p + "spike_prob", "must be within [0, 1]");
  if (has(obj, "schedule")) m.schedule = parse_schedule(obj);
  return m;
}

template <typename Parse>
void each(const object& obj, const char* key, Parse parse) {
  auto value = obj.at_key(key);
  if (value.error()) return;
  simdjson::dom::array items;
  if (value.get_array().get(items)) fail(std::string("inject.") + key, "expected an array");
  for (element item : items) {
    object entry;
    if (item.get_object().get(entry)) fail(std::string("inject.") + key, "expected objects");
    parse(entry);
  }
}

void check_rank(int rank, int ranks, const std::string& key) {
  if (rank < 0 || rank >= ranks) {
    fail(key, "rank " + std::to_string(rank) + " is outside 0.." + std::to_string(ranks - 1));
  }
}

// The entries of the list inject.KEY, each aimed at one rank (`rank`, checked against the job's
// ranks); `read(entry, "inject.KEY.", item)` reads the rest of an entry into item.
template <class Item, class Read>
void each_rank_entry(const object& obj, const char* key, int ranks, std::vector<Item>& out,
                     Read read) {
  const std::string prefix = std::string("inject.") + key + ".";
  each(obj, key, [&](const object& e) {
    Item item;
    item.rank = integer(e, "rank", prefix, item.rank);
    read(e, prefix, item);
    check_rank(item.rank, ranks, prefix + "rank");
    out.push_back(item);
  });
}

Injections parse_injections(const object& obj, int ranks, const ModelConfig& model,
                            PhaseNames names) {
  Injections inj;
  each(obj, "delays", [&](const object& e) {
    const std::string p = "inject.delays.";
    DelayInjection d;
    d.rank = integer(e, "rank", p, d.rank);
    d.phase = text(e, "phase", p, d.phase);
    const std::vector<std::string> phases = delay_phase_names(model);
    d.layer = integer(e, "layer", p, d.layer);
    d.microbatch = integer(e, "microbatch", p, d.microbatch);
    d.step_first = integer(e, "step_first", p, d.step_first);
    d.step_last = integer(e, "step_last", p, d.step_last);
    d.ms = number(e, "ms", p, d.ms);
    d.mode = text(e, "mode", p, d.mode);
    if (d.rank != kEveryRank) check_rank(d.rank, ranks, p + "rank");
    if (names == PhaseNames::kChecked &&
        std::find(phases.begin(), phases.end(), d.phase) == phases.end() &&
        !is_pmpi_phase(d.phase)) {
      fail(p + "phase", "unknown phase '" + d.phase + "'");
    }
    if (d.ms < 0) fail(p + "ms", "must be >= 0");
    if (d.mode != "sleep" && d.mode != "spin" && d.mode != "gpu") {
      fail(p + "mode", "expected sleep, spin or gpu");
    }
    inj.delays.push_back(d);
  });
  each_rank_entry(obj, "slowdowns", ranks, inj.slowdowns,
                  [](const object& e, const std::string& p, SlowdownInjection& s) {
                    s.factor = number(e, "factor", p, s.factor);
                    require_positive(s.factor, p + "factor");
                  });
  each_rank_entry(obj, "clock_skews", ranks, inj.clock_skews,
                  [](const object& e, const std::string& p, ClockSkewInjection& c) {
                    c.offset_ms = number(e, "offset_ms", p, c.offset_ms);
                    c.drift_ppm = number(e, "drift_ppm", p, c.drift_ppm);
                  });
  each_rank_entry(obj, "faults", ranks, inj.faults,
                  [](const object& e, const std::string& p, FaultInjection& f) {
                    f.step = integer(e, "step", p, f.step);
                    f.kind = text(e, "kind", p, f.kind);
                    if (f.kind != "abort" && f.kind != "hang") {
                      fail(p + "kind", "expected abort or hang");
                    }
                  });
  return inj;
}

std::vector<std::string> texts(const object& obj, const char* key, const std::string& path) {
  std::vector<std::string> out;
  if (!has(obj, key)) return out;
  simdjson::dom::array items;
  if (obj[key].get_array().get(items)) fail(path + key, "expected an array of strings");
  for (element item : items) {
    std::string_view value;
    if (item.get_string().get(value)) fail(path + key, "expected an array of strings");
    out.emplace_back(value);
  }
  return out;
}

// The import section. An echo written before the section was typed (culprit 0.x imports) held
// the communication backend (gloo, nccl, ...) at the root: it is read as this section's, the
// run's backend taken as cpu.
ImportSection parse_import(const object& root, std::string& backend) {
  object obj;
  if (root["import"].get_object().get(obj)) fail("import", "expected an object");
  ImportSection i;
  i.format = text(obj, "format", "import.", i.format);
  i.backend = text(obj, "backend", "import.", i.backend);
  i.partial = boolean(obj, "partial", "import.", i.partial);
  i.world_size = integer(obj, "world_size", "import.", i.world_size);
  i.files = texts(obj, "files", "import.");
  if (backend != "cpu" && backend != "cuda" && backend != "sim") {
    if (!has(obj, "backend")) i.backend = backend;
    backend = "cpu";
  }
  if (i.world_size < 1) fail("import.world_size", "must be >= 1");
  return i;
}

}  // namespace

RunConfig parse_run_config(const std::string& json_text, PhaseNames names) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json_text);
  object root;
  if (auto error = parser.parse(padded).get_object().get(root)) {
    throw std::invalid_argument(std::string("resolved configuration: not a JSON object: ") +
                                simdjson::error_message(error));
  }
  RunConfig c;
  c.experiment = text(root, "experiment", "", c.experiment);
  c.config_label = text(root, "config_label", "", c.config_label);
  c.repetition = integer(root, "repetition", "", c.repetition);
  {
    auto value = root.at_key("seed");
    std::uint64_t seed = 0;
    if (!value.error()) {
      if (value.get_uint64().get(seed)) fail("seed", "expected a non-negative integer");
      c.seed = seed;
    }
  }
  c.backend = text(root, "backend", "", c.backend);
  c.ranks = integer(root, "ranks", "", c.ranks);
  c.warmup_steps = integer(root, "warmup_steps", "", c.warmup_steps);
  c.steps = integer(root, "steps", "", c.steps);
  if (has(root, "import")) c.import = parse_import(root, c.backend);
  if (c.backend != "cpu" && c.backend != "cuda" && c.backend != "sim") {
    fail("backend", "expected cpu, cuda or sim");
  }
  if (c.ranks < 1) fail("ranks", "must be >= 1");
  if (c.warmup_steps < 0) fail("warmup_steps", "must be >= 0");
  if (c.steps < 1) fail("steps", "must be >= 1");
  object model;
  if (has(root, "model")) {
    if (root["model"].get_object().get(model)) fail("model", "expected an object");
    c.model = parse_model(model);
  }
  object inject;
  if (has(root, "inject")) {
    if (root["inject"].get_object().get(inject)) fail("inject", "expected an object");
    c.inject = parse_injections(inject, c.ranks, c.model, names);
  }
  c.instrument = text(root, "instrument", "", c.instrument);
  if (!c.instrument.empty() && c.instrument != "pmpi") fail("instrument", "expected \"pmpi\"");
  if (has(root, "step_rule")) {
    object rule;
    if (root["step_rule"].get_object().get(rule)) fail("step_rule", "expected an object");
    c.step_rule.call = text(rule, "call", "step_rule.", c.step_rule.call);
    c.step_rule.every = integer(rule, "every", "step_rule.", c.step_rule.every);
    if (c.step_rule.call != "MPI_Pcontrol" && !is_pmpi_collective(c.step_rule.call)) {
      fail("step_rule.call",
           "expected MPI_Pcontrol or a blocking collective, got '" + c.step_rule.call + "'");
    }
    if (c.step_rule.every < 1) fail("step_rule.every", "must be >= 1");
  }
  for (const DelayInjection& d : c.inject.delays) {
    if (names == PhaseNames::kChecked && needs_pmpi(c.model, d.phase) != (c.instrument == "pmpi")) {
      fail("inject.delays.phase",
           "phase '" + d.phase + "' needs " +
               (c.instrument == "pmpi" ? "a built-in workload" : "instrument \"pmpi\""));
    }
  }
  return c;
}

std::vector<std::string> delay_phase_names(const ModelConfig& model) {
  if (model.schedule.empty()) {
    return {"gemm.fwd", "gemm.bwd.dgrad", "gemm.bwd.wgrad", "allreduce", "optimizer"};
  }
  std::vector<std::string> names;
  for (const SchedulePhase& s : model.schedule) {
    if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
  }
  return names;
}

bool needs_pmpi(const ModelConfig& model, const std::string& phase) {
  if (!is_pmpi_phase(phase)) return false;
  return std::none_of(model.schedule.begin(), model.schedule.end(),
                      [&](const SchedulePhase& s) { return s.name == phase; });
}

std::string read_run_config_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("resolved configuration: cannot read " + path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

RunConfig load_run_config(const std::string& path) {
  return parse_run_config(read_run_config_text(path));
}

}  // namespace stepmodel
