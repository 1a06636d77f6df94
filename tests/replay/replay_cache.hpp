// Small generated recorded spaces for the replay tests: Kernel Tuner cache and T4 texts.
#ifndef AOE_TESTS_REPLAY_REPLAY_CACHE_HPP
#define AOE_TESTS_REPLAY_REPLAY_CACHE_HPP

#include <zlib.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace aoe::test {

/// One configuration of the tiny cache: a in {1, 2, 4}, b in {0, 1}, c in {"x", "y"}.
struct TinyEntry {
  int a;
  int b;
  const char* c;
  double time_ms;      ///< ignored when marker is set
  const char* marker;  ///< nullptr, or "RuntimeFailedConfig" etc.
};

/// 9 of the 12 raw configurations (a=4,b=1 is absent: 2 configurations; a=1,b=0,c=y absent),
/// two of them failed.
inline std::vector<TinyEntry> tiny_entries() {
  return {
      {1, 0, "x", 5.0, nullptr},
      {1, 1, "x", 4.0, nullptr},
      {1, 1, "y", 3.0, nullptr},
      {2, 0, "x", 0, "CompilationFailedConfig"},
      {2, 0, "y", 2.5, nullptr},
      {2, 1, "x", 1.0, nullptr},
      {2, 1, "y", 0, "RuntimeFailedConfig"},
      {4, 0, "x", 6.0, nullptr},
      {4, 0, "y", 2.0, nullptr},
  };
}

/// A Kernel Tuner cache of `entries`. `close` false leaves the file as an interrupted run
/// leaves it: entries appended, a trailing comma, no closing braces.
inline std::string kernel_tuner_cache(const std::vector<TinyEntry>& entries, bool close = true) {
  std::string text =
      "{\"device_name\": \"Tiny GPU\", \"kernel_name\": \"tiny\", \"problem_size\": 64,\n"
      "\"tune_params_keys\": [\"a\", \"b\", \"c\"],\n"
      "\"tune_params\": {\"a\": [1, 2, 4], \"b\": [0, 1], \"c\": [\"x\", \"y\"]},\n"
      "\"objective\": \"time\",\n\"cache\": {";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    char key[64];
    std::snprintf(key, sizeof key, "%d,%d,%s", e.a, e.b, e.c);
    char time[64];
    if (e.marker != nullptr) {
      std::snprintf(time, sizeof time, "\"%s\"", e.marker);
    } else {
      std::snprintf(time, sizeof time, "%.17g", e.time_ms);
    }
    char line[512];
    std::snprintf(line, sizeof line,
                  "\n\"%s\": {\"a\": %d, \"b\": %d, \"c\": \"%s\", \"time\": %s, \"times\": "
                  "[%.17g, %.17g], \"compile_time\": 100.0, \"verification_time\": 0, "
                  "\"benchmark_time\": 10.0, \"framework_time\": 1.0, \"strategy_time\": 0}",
                  key, e.a, e.b, e.c, time, e.time_ms, e.time_ms);
    text += line;
    if (i + 1 < entries.size() || !close) text += ",";
  }
  if (close) text += "\n}}\n";
  return text;
}

/// Writes `text` gzip-compressed to `path`.
inline bool write_gzip(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const int n = gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  return gzclose(f) == Z_OK && n == static_cast<int>(text.size());
}

}  // namespace aoe::test

#endif  // AOE_TESTS_REPLAY_REPLAY_CACHE_HPP
