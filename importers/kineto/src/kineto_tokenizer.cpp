#include "kineto_tokenizer.hpp"

#include <simdjson.h>

#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>

#include "culprit/errors.hpp"
#include "culprit/importers/input.hpp"

namespace culprit::importers {
namespace {

namespace od = simdjson::ondemand;

std::int64_t number_or_hash(od::value v) {
  std::int64_t n = 0;
  od::json_type type;
  if (v.type().get(type)) return 0;
  if (type == od::json_type::number) {
    if (!v.get_int64().get(n)) return n;
    double d = 0;
    // An id beyond int64 (or not finite) is no id any real trace has: 0, not undefined behaviour
    // (found by fuzz_import_kineto).
    if (!v.get_double().get(d) && std::isfinite(d) && std::abs(d) < 9.2e18) {
      return static_cast<std::int64_t>(d);
    }
    return 0;
  }
  if (type == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s)) return 0;
    // Text ids ("Spans", "CPU functions") become negative so they never meet numeric ids.
    return -static_cast<std::int64_t>(std::hash<std::string_view>{}(s) >> 2) - 1;
  }
  return 0;
}

std::int64_t time_ns(od::value v, const std::string& file, std::size_t offset) {
  std::string_view raw = v.raw_json_token();
  std::int64_t ns = 0;
  if (!micros_to_ns(raw, ns)) {
    throw UsageError(file + ": byte offset " + std::to_string(offset) +
                     ": a timestamp is not a number ('" + std::string(raw.substr(0, 40)) + "')");
  }
  return ns;
}

std::int64_t first_dims_product(od::value v) {
  // "Input Dims": [[267786]] or [[2, 3], ...]: the first input's element count.
  od::array outer;
  if (v.get_array().get(outer)) return -1;
  for (auto first : outer) {
    od::array inner;
    if (first.get_array().get(inner)) return -1;
    std::int64_t product = 1;
    bool any = false;
    for (auto d : inner) {
      std::int64_t n = 0;
      if (d.get_int64().get(n)) return -1;
      if (n < 0 || __builtin_mul_overflow(product, n, &product)) return -1;
      any = true;
    }
    return any ? product : -1;
  }
  return -1;
}

// A GEMM operator's input shapes (RawEvent::shapes), and the first input's element count.
std::int64_t read_shapes(od::value v, RawEvent::Shapes& shapes) {
  od::array outer;
  if (v.get_array().get(outer)) return -1;
  std::int64_t first = -1;
  for (auto input : outer) {
    if (shapes.inputs == static_cast<int>(shapes.dims.size())) break;
    const int i = shapes.inputs++;
    shapes.rank[i] = -1;
    od::array inner;
    if (input.get_array().get(inner)) continue;
    int rank = 0;
    std::int64_t product = 1;
    bool ok = true;
    for (auto d : inner) {
      std::int64_t n = 0;
      if (d.get_int64().get(n) || n < 0 || rank == 6) {
        ok = false;
        break;
      }
      shapes.dims[i][rank++] = n;
      ok = ok && !__builtin_mul_overflow(product, n, &product);
    }
    if (!ok) continue;
    shapes.rank[i] = rank;
    if (i == 0 && rank > 0) first = product;
  }
  return first;
}

// The offset of the first '"' or '\\' at `p`, eight bytes at a time (SWAR: a byte equal to c is
// a zero byte of v ^ c...c; the lowest flagged byte is exact). Reads up to 7 bytes past it: inside
// the JSON text, or its simdjson padding.
std::size_t quote_or_escape(const char* p) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  for (std::size_t at = 0;; at += 8) {
    std::uint64_t v = 0;
    std::memcpy(&v, p + at, 8);
    const std::uint64_t q = v ^ (kOnes * '"'), b = v ^ (kOnes * '\\');
    const std::uint64_t found = ((q - kOnes) & ~q & kHigh) | ((b - kOnes) & ~b & kHigh);
    if (found != 0) return at + static_cast<std::size_t>(__builtin_ctzll(found) / 8);
  }
}

// A field's key as written (a view into the file's bytes), unescaped into simdjson's string
// buffer only when it holds an escape (JSON allows "n\u0061me" for "name"). Unescaping every
// key cost ~10 % of reading a libkineto file, and 0.3 bytes of memory per byte of JSON: most
// keys ("External id", "Ev Idx", ...) are never used.
simdjson::error_code key_of(simdjson::simdjson_result<od::field>& field, std::string_view& key) {
  od::raw_json_string raw;
  if (auto error = field.key().get(raw)) return error;
  const char* begin = raw.raw();
  const std::size_t end = quote_or_escape(begin);
  if (begin[end] == '"') {
    key = std::string_view(begin, end);
    return simdjson::SUCCESS;
  }
  return field.unescaped_key().get(key);
}

// A string value as written (a view into the file's bytes), unescaped only when it holds an
// escape, as keys are (key_of); not a string: simdjson's INCORRECT_TYPE, thrown.
std::string_view string_of(od::value v) {
  const std::string_view token = v.raw_json_token();  // peeks: `v` stays unread
  if (token.size() >= 2 && token[0] == '"') {
    const std::size_t end = quote_or_escape(token.data() + 1);
    if (token[1 + end] == '"') return token.substr(1, end);
  }
  return v.get_string();
}

void read_args(od::object args, RawEvent& e) {
  for (auto field : args) {
    std::string_view key;
    if (key_of(field, key)) continue;
    od::value v = field.value();
    if (key == "Input Dims") {
      if (is_gemm_operator(e.name)) {
        const std::int64_t n = read_shapes(v, e.shapes);
        if (e.numel < 0) e.numel = n;
      } else if (e.numel < 0) {
        e.numel = first_dims_product(v);
      }
    } else if (key == "In msg nelems") {
      std::int64_t n = 0;
      if (!v.get_int64().get(n)) e.numel = n;
    } else if (key == "Input type") {
      od::array a;
      if (!v.get_array().get(a)) {
        for (auto t : a) {
          std::string_view s;
          if (!t.get_string().get(s) && e.dtype.empty()) e.dtype = s;
          break;
        }
      }
    } else if (key == "dtype") {
      std::string_view s;
      if (!v.get_string().get(s)) e.dtype = s;
    } else if (key == "Process Group Name") {
      std::string_view s;
      if (!v.get_string().get(s)) e.group = s;
    } else if (key == "Seq" || key == "seq") {
      std::int64_t n = 0;
      if (!v.get_int64().get(n)) e.seq = n;
    } else if (key == "correlation") {
      std::int64_t n = 0;
      if (!v.get_int64().get(n)) e.correlation = n;
    } else if (key == "device") {
      std::int64_t n = 0;
      if (!v.get_int64().get(n)) e.device = n;
    } else if (key == "stream") {
      std::int64_t n = 0;
      if (!v.get_int64().get(n)) e.stream = n;
    }
  }
}

// pg_config: [{"pg_name": "0", "ranks": [0, 1], ...}, ...]; entries without both are skipped.
void read_group_config(od::array groups, KinetoHeader& h) {
  for (auto element : groups) {
    od::object g;
    if (element.get_object().get(g)) continue;
    std::string name;
    std::vector<int> ranks;
    bool has_ranks = false;
    for (auto field : g) {
      std::string_view key;
      if (field.unescaped_key().get(key)) continue;
      od::value v = field.value();
      std::string_view s;
      od::array a;
      if (key == "pg_name" && !v.get_string().get(s)) {
        name = std::string(s);
      } else if (key == "ranks" && !v.get_array().get(a)) {
        has_ranks = true;
        for (auto r : a) {
          std::int64_t n = 0;
          if (r.get_int64().get(n) || n < 0 || n > INT32_MAX) {
            has_ranks = false;
            break;
          }
          ranks.push_back(static_cast<int>(n));
        }
      }
    }
    if (!name.empty() && has_ranks) h.group_ranks[name] = std::move(ranks);
  }
}

// A whole number as writers spell it: 1, 1.0 or "1" (hand-made and converted traces); anything
// else (1.5, "one", true) is kept as its text in `bad` so that the caller refuses it by name
// instead of reading it as "no rank".
void read_whole(od::value v, std::optional<std::int64_t>& out, std::string& bad) {
  std::int64_t n = 0;
  double d = 0;
  std::string_view text;
  od::json_type type;
  if (v.type().get(type)) return;
  if (type == od::json_type::number) {
    if (!v.get_int64().get(n)) {
      out = n;
      return;
    }
    if (!v.get_double().get(d) && std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9e18) {
      out = static_cast<std::int64_t>(d);
      return;
    }
  } else if (type == od::json_type::string && !v.get_string().get(text) && !text.empty()) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec == std::errc() && end == text.data() + text.size()) {
      out = n;
      return;
    }
  }
  bad = std::string(v.raw_json_token().substr(0, 40));
}

void read_distributed(od::object info, KinetoHeader& h) {
  for (auto field : info) {
    std::string_view key;
    if (field.unescaped_key().get(key)) continue;
    od::value v = field.value();
    if (key == "rank") {
      read_whole(v, h.rank, h.bad_rank);
    } else if (key == "world_size") {
      read_whole(v, h.world_size, h.bad_world_size);
    } else if (key == "backend") {
      std::string_view s;
      if (!v.get_string().get(s)) h.backend = std::string(s);
    } else if (key == "pg_config") {
      od::array groups;
      if (!v.get_array().get(groups)) read_group_config(groups, h);
    }
  }
}

// One element of traceEvents (simdjson errors propagate to tokenize_kineto, which names the
// offset).
RawEvent read_event(od::object ev, const std::string& file, std::size_t offset) {
  RawEvent e;
  e.offset = offset;
  for (auto f : ev) {
    std::string_view k;
    if (auto error = key_of(f, k)) throw simdjson::simdjson_error(error);
    od::value v = f.value();
    if (k == "ph") {
      e.ph = string_of(v);
      // The rules read complete and duration events only; the rest of a flow ('s', 'f'), an
      // instant or a metadata event is skipped unread once its phase says so (libkineto
      // writes "ph" first: a third of a GPU trace's events are flows).
      if (e.ph != "X" && e.ph != "B" && e.ph != "E") return e;
    } else if (k == "cat") {
      e.cat = string_of(v);
    } else if (k == "name") {
      e.name = string_of(v);
    } else if (k == "ts") {
      e.ts_ns = time_ns(v, file, offset);
      e.has_ts = true;
    } else if (k == "dur") {
      e.dur_ns = time_ns(v, file, offset);
      e.has_dur = true;
    } else if (k == "tid") {
      e.tid = number_or_hash(v);
    } else if (k == "pid") {
      e.pid = number_or_hash(v);
    } else if (k == "args") {
      od::object args;
      if (!v.get_object().get(args)) read_args(args, e);
    }
  }
  return e;
}

// A top-level field other than traceEvents.
void read_header_field(std::string_view key, od::value v, const std::string& file,
                       KinetoHeader& h) {
  if (key == "distributedInfo") {
    od::object info;
    if (!v.get_object().get(info)) read_distributed(info, h);
  } else if (key == "baseTimeNanoseconds") {
    std::uint64_t n = 0;
    if (v.get_uint64().get(n)) {
      throw UsageError(file + ": baseTimeNanoseconds is not an unsigned integer");
    }
    h.has_base_time = true;
    h.base_time_ns = static_cast<std::int64_t>(n);
  } else if (key == "schemaVersion") {
    std::int64_t n = 0;
    if (!v.get_int64().get(n)) h.schema_version = n;
  }
}

}  // namespace

KinetoHeader tokenize_kineto(const std::string& padded, std::size_t length, const std::string& file,
                             const RawEventSink& sink) {
  KinetoHeader h;
  od::parser parser;
  od::document doc;
  const char* base = padded.data();
  std::size_t offset = 0;
  bool iterated = false;
  try {
    if (auto error = parser.iterate(padded.data(), length, padded.capacity()).get(doc)) {
      throw simdjson::simdjson_error(error);
    }
    iterated = true;
    od::object top;
    if (auto error = doc.get_object().get(top)) {
      if (error == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) throw simdjson::simdjson_error(error);
      throw UsageError(file + ": not a Kineto trace: the file is not a JSON object" +
                       std::string(" (a bare array is the legacy format: --format legacy)"));
    }
    for (auto field : top) {
      std::string_view key = field.unescaped_key();
      if (key == "traceEvents") {
        h.has_trace_events = true;
        for (auto element : field.value().get_array()) {
          const char* at = nullptr;
          if (!doc.current_location().get(at)) offset = static_cast<std::size_t>(at - base);
          sink(read_event(element.get_object(), file, offset));
          ++h.events;
        }
      } else {
        read_header_field(key, field.value(), file, h);
      }
    }
  } catch (const simdjson::simdjson_error& e) {
    if (e.error() == simdjson::UTF8_ERROR) {
      const std::size_t at = first_invalid_utf8(std::string_view(padded.data(), length));
      throw UsageError(file + ": byte offset " + std::to_string(at) +
                       ": not valid UTF-8 (JSON text must be): the file is damaged, or a name "
                       "was written in another encoding; re-encode the file as UTF-8");
    }
    const char* at = nullptr;
    if (iterated && !doc.current_location().get(at) && at >= base && at <= base + length)
      offset = static_cast<std::size_t>(at - base);
    if (e.error() == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) offset = length;
    const bool truncated = e.error() == simdjson::INCOMPLETE_ARRAY_OR_OBJECT ||
                           e.error() == simdjson::TAPE_ERROR || offset + 64 >= length;
    const std::string where = iterated ? "near byte offset " + std::to_string(offset)
                                       : "(the structural scan of all " + std::to_string(length) +
                                             " bytes failed before any event: no offset)";
    throw UsageError(file + ": " + (truncated ? "truncated or malformed" : "malformed") + " JSON " +
                     where + " (" + simdjson::error_message(e.error()) +
                     "): the file is damaged; copy it again from where the profiler wrote it");
  }
  return h;
}

}  // namespace culprit::importers
