// The JSON texts the tuning database stores and the exporters write (a configuration as an object,
// samples as an array) and the CSV/JSON escaping the exporters share. Values keep their type: an
// integer is written without a point, a real always with one (SQLite's json_each reads the types
// back).
#ifndef AOE_EXPORT_JSON_TEXT_HPP
#define AOE_EXPORT_JSON_TEXT_HPP

#include "aoe/space/value.hpp"

#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace aoe::detail {

/// `"text"` with JSON escapes.
inline void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(ch));
          out += buffer;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

/// A finite real in the shortest text that reads back to it, with a point or an exponent;
/// `null` for NaN and infinities (JSON has no spelling for them).
inline void append_json_real(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  std::string s = Value(d).to_string();
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  out += s;
}

inline void append_json_value(std::string& out, const Value& v) {
  if (v.is_integer()) {
    out += std::to_string(v.as_integer());
  } else if (v.is_real()) {
    append_json_real(out, v.as_real());
  } else {
    append_json_string(out, v.as_text());
  }
}

/// {"tile":16,"order":"ijk"}.
inline std::string json_object(std::span<const NamedValue> values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, values[i].name);
    out += ':';
    append_json_value(out, values[i].value);
  }
  out += '}';
  return out;
}

/// [1.5e-05,1.6e-05].
inline std::string json_array(std::span<const double> xs) {
  std::string out = "[";
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (i) out += ',';
    append_json_real(out, xs[i]);
  }
  out += ']';
  return out;
}

/// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
inline void append_csv_field(std::string& out, std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += s;
    return;
  }
  out += '"';
  for (const char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
}

}  // namespace aoe::detail

#endif  // AOE_EXPORT_JSON_TEXT_HPP
