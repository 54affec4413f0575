#include "runfile/phase_range.hpp"

namespace runfile {
namespace {

void append_id(std::string& out, std::string_view label, std::int32_t id) {
  if (id < 0) return;
  out += ' ';
  out += label;
  out += ' ';
  out += std::to_string(id);
}

}  // namespace

std::string phase_range_name(std::string_view phase, std::int32_t step, std::int32_t microbatch,
                             std::int32_t layer, std::int32_t seq) {
  std::string out(phase);
  out += " step " + std::to_string(step);
  append_id(out, "microbatch", microbatch);
  append_id(out, "layer", layer);
  append_id(out, "seq", seq);
  return out;
}

}  // namespace runfile
