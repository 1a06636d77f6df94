// Small Boost.JSON helpers shared by the replay loaders: parsing with the failing byte, JSON
// pointers for error messages, values to parameter levels.
#ifndef AOE_MEASURE_REPLAY_DETAIL_JSON_UTIL_HPP
#define AOE_MEASURE_REPLAY_DETAIL_JSON_UTIL_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/parse_json.hpp"
#include "aoe/space/value.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace aoe::replay::detail {

// The strict parser (errors name the file, line and column) and JSON pointer tokens.
using aoe::detail::parse_json;
using aoe::detail::pointer_token;

/// A JSON number as a double.
[[nodiscard]] inline std::optional<double> number(const boost::json::value& v) {
  if (v.is_double()) return v.get_double();
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return std::nullopt;
}

/// A JSON scalar as a parameter level (booleans become 0/1, as Python's True == 1).
[[nodiscard]] inline std::optional<Value> level(const boost::json::value& v) {
  if (v.is_int64()) return Value(v.get_int64());
  if (v.is_uint64()) return Value(static_cast<std::int64_t>(v.get_uint64()));
  if (v.is_double()) return Value(v.get_double());
  if (v.is_bool()) return Value(v.get_bool() ? 1 : 0);
  if (v.is_string()) return Value(std::string(v.get_string()));
  return std::nullopt;
}

/// "a number", "a string", ... for messages.
[[nodiscard]] inline std::string_view kind_name(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "an array";
    case boost::json::kind::object: return "an object";
  }
  return "a value";
}

/// "<file>: <pointer>: expected <what>, found <kind>".
[[nodiscard]] inline ErrorInfo schema_error(const std::string& path, const std::string& pointer,
                                            std::string_view expected,
                                            const boost::json::value* found = nullptr) {
  std::string message = path + ": " + (pointer.empty() ? std::string("/") : pointer) +
                        ": expected " + std::string(expected);
  if (found != nullptr) message += ", found " + std::string(kind_name(*found));
  return make_error(Errc::schema_error, std::move(message));
}

/// The file name without its directory and its .json / .json.gz suffix.
[[nodiscard]] inline std::string stem(const std::string& path) {
  std::string name =
      path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  for (const std::string_view suffix : {".gz", ".json"}) {
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      name.erase(name.size() - suffix.size());
    }
  }
  return name;
}

}  // namespace aoe::replay::detail

#endif  // AOE_MEASURE_REPLAY_DETAIL_JSON_UTIL_HPP
