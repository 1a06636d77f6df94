// Reading GDAT's input files (gradient profiles, clusters): the text of a file, JSON with
// line:column on syntax errors, and numbers checked with messages that name the file, the JSON
// pointer and what was expected.
#ifndef AOE_JOBS_GDAT_DETAIL_JSON_INPUT_HPP
#define AOE_JOBS_GDAT_DETAIL_JSON_INPUT_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/parse_json.hpp"
#include "aoe/io/read_input.hpp"

#include <boost/json/value.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace aoe::gdat::detail {

/// The whole text of `file`; `what` says what the file should be, for the message.
[[nodiscard]] inline Result<std::string> read_text(const std::filesystem::path& file,
                                                   std::string_view what) {
  return aoe::detail::read_input_file(file, what);
}

/// Parses JSON text; a syntax error names `source:line:column` (aoe/io/parse_json.hpp:
/// duplicate keys and numbers out of range are errors too).
using aoe::detail::parse_json;

/// The largest number a GDAT input takes (1e15: 31 years in microseconds): sums over millions
/// of gradients stay finite, so no result file ever holds an infinity.
inline constexpr double max_number = 1e15;

/// Errors of one input file: "<source>: <pointer>: <what>".
class InputErrors {
 public:
  explicit InputErrors(std::string source) : source_(std::move(source)) {}

  [[nodiscard]] ErrorInfo fail(Errc e, const std::string& pointer, const std::string& what) const {
    return make_error(
        e, source_ + ": " + (pointer.empty() ? std::string("/") : pointer) + ": " + what);
  }

  /// The format_version member: absent or 1.
  [[nodiscard]] Result<void> check_version(const boost::json::object& o) const {
    const auto* v = o.if_contains("format_version");
    if (v == nullptr) return {};
    if (!v->is_int64())
      return fail(Errc::schema_error, "/format_version", "expected the integer 1");
    if (v->as_int64() != 1) {
      return fail(Errc::unsupported_version, "/format_version",
                  "expected 1, found " + std::to_string(v->as_int64()) +
                      " (this build reads format version 1)");
    }
    return {};
  }

  /// A finite number >= `lo` (> `lo` when `strict`); absent: `fallback`, or an error when
  /// there is none. `unit` completes "expected a ... number of <unit>".
  [[nodiscard]] Result<double> number(const boost::json::object& o, std::string_view key,
                                      const std::string& pointer, std::optional<double> fallback,
                                      double lo, bool strict, std::string_view unit) const {
    const std::string ptr = pointer + "/" + std::string(key);
    const std::string expected = std::string(strict ? "a positive" : "a non-negative") + " number" +
                                 (unit.empty() ? "" : " of " + std::string(unit));
    const auto* v = o.if_contains(key);
    if (v == nullptr) {
      if (fallback) return *fallback;
      return fail(Errc::schema_error, ptr, "missing; expected " + expected);
    }
    if (!v->is_number()) return fail(Errc::schema_error, ptr, "expected " + expected);
    const double x = v->to_number<double>();
    if (!std::isfinite(x) || x < lo || (strict && x <= lo) || x > max_number) {
      std::ostringstream found;
      found << x;
      return fail(Errc::schema_error, ptr,
                  "expected " + expected + (x > max_number ? " up to 1e15" : "") + ", found " +
                      found.str());
    }
    return x;
  }

  /// An integer >= `lo`; absent: `fallback`, or an error when there is none.
  [[nodiscard]] Result<std::int64_t> integer(const boost::json::object& o, std::string_view key,
                                             const std::string& pointer,
                                             std::optional<std::int64_t> fallback, std::int64_t lo,
                                             std::string_view what) const {
    const std::string ptr = pointer + "/" + std::string(key);
    const std::string expected = "an integer >= " + std::to_string(lo) +
                                 (what.empty() ? "" : " (" + std::string(what) + ")");
    const auto* v = o.if_contains(key);
    if (v == nullptr) {
      if (fallback) return *fallback;
      return fail(Errc::schema_error, ptr, "missing; expected " + expected);
    }
    std::optional<std::int64_t> n;
    if (v->is_int64()) n = v->as_int64();
    if (v->is_uint64() && v->as_uint64() <= 0x7FFFFFFFFFFFFFFFULL) {
      n = static_cast<std::int64_t>(v->as_uint64());
    }
    if (v->is_double() && std::trunc(v->as_double()) == v->as_double() &&
        std::fabs(v->as_double()) < 9e15) {
      n = static_cast<std::int64_t>(v->as_double());
    }
    if (!n) return fail(Errc::schema_error, ptr, "expected " + expected);
    if (*n < lo) {
      return fail(Errc::schema_error, ptr,
                  "expected " + expected + ", found " + std::to_string(*n));
    }
    return *n;
  }

  [[nodiscard]] const std::string& source() const noexcept { return source_; }

 private:
  std::string source_;
};

}  // namespace aoe::gdat::detail

#endif  // AOE_JOBS_GDAT_DETAIL_JSON_INPUT_HPP
