// RunConfig -> its canonical resolved JSON (docs/schema.md, "Resolved configuration"): object
// keys sorted, no whitespace, integers as integers, doubles in their shortest round-trip form
// (0 and -0 as 0). The text is what configuration hashes cover, so it must not change for an
// unchanged configuration (tests/data/manifests/resolved/ pins it).

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/common/json.hpp"
#include "stepmodel/config.hpp"

namespace stepmodel {
namespace {

// One escaping and one number format for every JSON culprit writes (common/).
std::string json_string(std::string_view text) {
  std::string out;
  culprit::append_json_string(out, text);
  return out;
}

std::string number(double value) {
  return culprit::format_number(value);
}

std::string boolean(bool value) {
  return value ? "true" : "false";
}

// An object's members, rendered; std::map keeps the keys sorted.
using Members = std::map<std::string, std::string>;

std::string json_object(const Members& members) {
  std::string out = "{";
  for (const auto& [key, value] : members) {
    if (out.size() > 1) out.push_back(',');
    out += json_string(key) + ":" + value;
  }
  return out + "}";
}

template <typename Item, typename Render>
std::string array(const std::vector<Item>& items, Render render) {
  std::string out = "[";
  for (const Item& item : items) {
    if (out.size() > 1) out.push_back(',');
    out += json_object(render(item));
  }
  return out + "]";
}

Members phase_members(const SchedulePhase& p) {
  Members m{{"name", json_string(p.name)}, {"ms", number(p.ms)}};
  if (p.gap_ms > 0) m["gap_ms"] = number(p.gap_ms);
  if (p.layer >= 0) m["layer"] = std::to_string(p.layer);
  if (p.microbatch >= 0) m["microbatch"] = std::to_string(p.microbatch);
  if (p.collective) {
    m["collective"] = "true";
    m["seq"] = std::to_string(p.seq);
    m["bytes"] = std::to_string(p.bytes);
    if (p.async) m["async"] = "true";
  }
  if (p.waits) m["waits"] = "true";
  return m;
}

std::string model_json(const ModelConfig& m) {
  Members out{{"layers", std::to_string(m.layers)},
              {"microbatches", std::to_string(m.microbatches)},
              {"tokens", std::to_string(m.tokens)},
              {"hidden", std::to_string(m.hidden)},
              {"buckets", std::to_string(m.buckets)},
              {"overlap", boolean(m.overlap)},
              {"dtype", json_string(m.dtype)},
              {"compute", json_string(m.compute)},
              {"flops_per_s", number(m.flops_per_s)},
              {"mem_bytes_per_s", number(m.mem_bytes_per_s)},
              {"compute_scale", number(m.compute_scale)},
              {"peak_flops", number(m.peak_flops)},
              {"link_bytes_per_s", number(m.link_bytes_per_s)},
              {"hop_latency_us", number(m.hop_latency_us)},
              {"noise_cv", number(m.noise_cv)},
              {"run_cv", number(m.run_cv)},
              {"spike_prob", number(m.spike_prob)},
              {"spike_ms", number(m.spike_ms)},
              {"threads", std::to_string(m.threads)}};
  if (!m.schedule.empty()) out["schedule"] = array(m.schedule, phase_members);
  return json_object(out);
}

Members delay_members(const DelayInjection& d) {
  return {{"rank", std::to_string(d.rank)},
          {"phase", json_string(d.phase)},
          {"layer", std::to_string(d.layer)},
          {"microbatch", std::to_string(d.microbatch)},
          {"step_first", std::to_string(d.step_first)},
          {"step_last", std::to_string(d.step_last)},
          {"ms", number(d.ms)},
          {"mode", json_string(d.mode)}};
}

std::string inject_json(const Injections& inject) {
  return json_object(Members{
      {"delays", array(inject.delays, delay_members)},
      {"slowdowns",
       array(inject.slowdowns,
             [](const SlowdownInjection& s) {
               return Members{{"rank", std::to_string(s.rank)}, {"factor", number(s.factor)}};
             })},
      {"clock_skews", array(inject.clock_skews,
                            [](const ClockSkewInjection& c) {
                              return Members{{"rank", std::to_string(c.rank)},
                                             {"offset_ms", number(c.offset_ms)},
                                             {"drift_ppm", number(c.drift_ppm)}};
                            })},
      {"faults", array(inject.faults, [](const FaultInjection& f) {
         return Members{{"rank", std::to_string(f.rank)},
                        {"step", std::to_string(f.step)},
                        {"kind", json_string(f.kind)}};
       })}});
}

std::string import_json(const ImportSection& i) {
  std::string files = "[";
  for (const std::string& f : i.files) files += (files.size() > 1 ? "," : "") + json_string(f);
  return json_object(Members{{"format", json_string(i.format)},
                             {"backend", json_string(i.backend)},
                             {"partial", boolean(i.partial)},
                             {"world_size", std::to_string(i.world_size)},
                             {"files", files + "]"}});
}

}  // namespace

std::string to_json(const DelayInjection& delay) {
  return json_object(delay_members(delay));
}

std::string to_json(const RunConfig& c, JsonFields fields) {
  Members root{{"backend", json_string(c.backend)},
               {"ranks", std::to_string(c.ranks)},
               {"warmup_steps", std::to_string(c.warmup_steps)},
               {"steps", std::to_string(c.steps)},
               {"inject", inject_json(c.inject)}};
  if (c.import) {
    root["import"] = import_json(*c.import);
  } else {
    root["model"] = model_json(c.model);
  }
  if (!c.instrument.empty()) {
    root["instrument"] = json_string(c.instrument);
    root["step_rule"] = json_object(Members{{"call", json_string(c.step_rule.call)},
                                            {"every", std::to_string(c.step_rule.every)}});
  }
  if (fields != JsonFields::kWorkload) {
    root["experiment"] = json_string(c.experiment);
    root["config_label"] = json_string(c.config_label);
  }
  if (fields == JsonFields::kRun) {
    root["repetition"] = std::to_string(c.repetition);
    root["seed"] = std::to_string(c.seed);
  }
  return json_object(root);
}

}  // namespace stepmodel
