// aoe::replay::load: a recorded space from a file, whichever of the supported formats it is.
// Links zlib (CMake: ZLIB::ZLIB, otherwise -lz) and Boost.JSON.
#ifndef AOE_MEASURE_REPLAY_LOAD_HPP
#define AOE_MEASURE_REPLAY_LOAD_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/replay/detail/json_util.hpp"
#include "aoe/measure/replay/detail/read_file.hpp"
#include "aoe/measure/replay/kernel_tuner_cache.hpp"
#include "aoe/measure/replay/recording.hpp"
#include "aoe/measure/replay/t4_results.hpp"

#include <boost/json/value.hpp>

#include <cctype>
#include <string>
#include <string_view>

namespace aoe::replay {

/// Loads a recorded space from `path`: a Kernel Tuner cache file (an object with `cache`) or a
/// T4 results file (an object with `results`), plain or gzip-compressed (.json, .json.gz; the
/// contents decide, not the name). `name` defaults to the file name without its suffixes.
///
/// A Kernel Tuner cache cut short after a complete entry (an interrupted brute-force run:
/// Kernel Tuner appends entries as it measures them and accepts a file missing its closing
/// braces) is read as Kernel Tuner reads it; a file cut inside an entry is a parse error.
/// Errors: `not_found`, `io_error`, `parse_error` (with the byte), `schema_error` (with the
/// JSON pointer), `unsupported`; every message names the file.
[[nodiscard]] inline Result<Recording> load(const std::string& path, std::string name = {}) {
  auto text = detail::read_maybe_gzip(path);
  if (!text) return text.error();
  auto parsed = detail::parse_json(*text, path);
  if (!parsed) {
    // Kernel Tuner's repair of an interrupted cache (util.py: process_cache): drop a trailing
    // comma and close the `cache` object and the document.
    std::string_view t = *text;
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back())) != 0) {
      t.remove_suffix(1);
    }
    const bool cache_like = t.find("\"cache\"") != std::string_view::npos;
    if (cache_like && !t.empty() && (t.back() == ',' || t.back() == '}' || t.back() == '{')) {
      std::string repaired(t.back() == ',' ? t.substr(0, t.size() - 1) : t);
      for (const char* closing : {"}}", "}"}) {
        auto again = detail::parse_json(repaired + closing, path);
        if (again) {
          parsed = std::move(again);
          break;
        }
      }
    }
    if (!parsed) return parsed.error();
  }
  const boost::json::value& root = *parsed;
  if (const auto* o = root.if_object()) {
    if (o->contains("cache")) return load_kernel_tuner_cache(root, path, std::move(name));
    if (o->contains("results")) return load_t4_results(root, path, std::move(name));
  }
  return detail::schema_error(path, "",
                              "a Kernel Tuner cache (an object with /cache) or T4 results (an "
                              "object with /results)",
                              &root);
}

}  // namespace aoe::replay

#endif  // AOE_MEASURE_REPLAY_LOAD_HPP
