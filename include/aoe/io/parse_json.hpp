// The one JSON parser for every input file (models, gradient profiles, clusters, banks, Kernel
// Tuner caches, T4 files, SoC and kernel catalogs): Boost.JSON's strict RFC 8259 parser, plus two
// checks Boost.JSON 1.81 does not make (its parse_options have no duplicate-key switch, and a
// number too large for a double becomes infinity), and one correction:
//   - a key given twice in one object is an error naming the key (Boost keeps one silently);
//   - a number that is not finite as a double (1e999) is an error naming where it is;
//   - every number that is read as a double is read again from its text, correctly rounded
//     (std::from_chars): Boost.JSON 1.81 is off by one unit in the last place for about one in
//     six of the shortest round-trip texts its own serializer writes, so a bank value written
//     and read back would not be the same double.
// Errors name `source:line:column` (or `source: <JSON pointer>`). Cost: the compiled parser of
// libboost_json, then one scan of the text that compares the keys of each object in place (no
// copies) and one walk of the value (docs/reliability.md#input-limits).
#ifndef AOE_IO_PARSE_JSON_HPP
#define AOE_IO_PARSE_JSON_HPP

#include "aoe/core/error.hpp"

#include <boost/json/stream_parser.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace aoe::detail {

/// "source:line:column" of byte `at` of `text`.
[[nodiscard]] inline std::string json_position(std::string_view text, std::size_t at,
                                               std::string_view source) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::string(source) + ":" + std::to_string(line) + ":" + std::to_string(column);
}

/// The key a JSON string token (without its quotes) stands for: escapes decoded, \uXXXX (and
/// surrogate pairs) as UTF-8. The token is known to be valid (Boost parsed it first).
[[nodiscard]] inline std::string json_unescape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  const auto hex4 = [&](std::size_t at) {
    unsigned v = 0;
    for (std::size_t k = 0; k < 4 && at + k < raw.size(); ++k) {
      const char c = raw[at + k];
      v = v * 16U + static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
  };
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\' || i + 1 >= raw.size()) {
      out.push_back(raw[i]);
      continue;
    }
    const char e = raw[++i];
    switch (e) {
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        unsigned cp = hex4(i + 1);
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < raw.size() + 0 && raw[i + 1] == '\\' &&
            raw[i + 2] == 'u') {
          const unsigned lo = hex4(i + 3);
          if (lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10U) + (lo - 0xDC00);
            i += 6;
          }
        }
        if (cp < 0x80) {
          out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
          out.push_back(static_cast<char>(0xC0 | (cp >> 6U)));
          out.push_back(static_cast<char>(0x80 | (cp & 0x3FU)));
        } else if (cp < 0x10000) {
          out.push_back(static_cast<char>(0xE0 | (cp >> 12U)));
          out.push_back(static_cast<char>(0x80 | ((cp >> 6U) & 0x3FU)));
          out.push_back(static_cast<char>(0x80 | (cp & 0x3FU)));
        } else {
          out.push_back(static_cast<char>(0xF0 | (cp >> 18U)));
          out.push_back(static_cast<char>(0x80 | ((cp >> 12U) & 0x3FU)));
          out.push_back(static_cast<char>(0x80 | ((cp >> 6U) & 0x3FU)));
          out.push_back(static_cast<char>(0x80 | (cp & 0x3FU)));
        }
        break;
      }
      default: out.push_back(e); break;  // " \ /
    }
  }
  return out;
}

/// A key of an open object, as find_duplicate_key scans it.
struct JsonKey {
  std::string_view raw;  // between the quotes, escapes not decoded
  std::size_t at;        // offset of the opening quote
};

/// Whether two keys name the same member (decoded only when one of them has an escape).
[[nodiscard]] inline bool same_json_key(const JsonKey& a, const JsonKey& b) {
  if (a.raw == b.raw) return true;
  const bool escaped =
      a.raw.find('\\') != std::string_view::npos || b.raw.find('\\') != std::string_view::npos;
  return escaped && json_unescape(a.raw) == json_unescape(b.raw);
}

/// The index of the first of `keys[begin..]` (the keys of one object) that repeats an earlier
/// one of them, or npos: pairwise for a few keys or when one has an escape, else hashed.
[[nodiscard]] inline std::size_t first_repeated_key(const std::vector<JsonKey>& keys,
                                                    std::size_t begin) {
  const std::size_t n = keys.size() - begin;
  bool any_escape = false;
  for (std::size_t i = begin; i < keys.size(); ++i) {
    any_escape = any_escape || keys[i].raw.find('\\') != std::string_view::npos;
  }
  if (n <= 16 || any_escape) {
    for (std::size_t i = begin + 1; i < keys.size(); ++i) {
      for (std::size_t j = begin; j < i; ++j) {
        if (same_json_key(keys[j], keys[i])) return i;
      }
    }
    return std::string_view::npos;
  }
  std::unordered_set<std::string_view> seen;
  seen.reserve(n);
  for (std::size_t i = begin; i < keys.size(); ++i) {
    if (!seen.insert(keys[i].raw).second) return i;
  }
  return std::string_view::npos;
}

/// Scans well-formed JSON text for a key given twice in one object; returns the byte offset of
/// the second occurrence (its opening quote) and the key, or npos.
[[nodiscard]] inline std::size_t find_duplicate_key(std::string_view text, std::string& key) {
  std::vector<JsonKey> keys;        // keys of the open objects, innermost last
  std::vector<std::size_t> frames;  // per open container: where its keys begin; npos: array
  bool expect_key = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t start = i;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      if (expect_key) {
        keys.push_back({text.substr(start + 1, i - start - 1), start});
        expect_key = false;
      }
    } else if (c == '{') {
      frames.push_back(keys.size());
      expect_key = true;
    } else if (c == '[') {
      frames.push_back(std::string_view::npos);
    } else if (c == ',') {
      expect_key = !frames.empty() && frames.back() != std::string_view::npos;
    } else if (c == '}' || c == ']') {
      const std::size_t begin = frames.back();
      frames.pop_back();
      if (begin != std::string_view::npos && keys.size() - begin > 1) {
        const std::size_t found = first_repeated_key(keys, begin);
        if (found != std::string_view::npos) {
          key = json_unescape(keys[found].raw);
          return keys[found].at;
        }
      }
      if (begin != std::string_view::npos) keys.resize(begin);
      expect_key = false;
    }
  }
  return std::string_view::npos;
}

/// One reference token of a JSON pointer (RFC 6901): '~' -> "~0", '/' -> "~1".
[[nodiscard]] inline std::string pointer_token(std::string_view token) {
  std::string out;
  for (const char ch : token) {
    if (ch == '~') {
      out += "~0";
    } else if (ch == '/') {
      out += "~1";
    } else {
      out += ch;
    }
  }
  return out;
}

[[nodiscard]] inline bool all_finite(const boost::json::value& v, std::string& pointer);

/// True when every number in `a` is finite; otherwise `pointer` is where the first one is not.
[[nodiscard]] inline bool all_finite(const boost::json::array& a, std::string& pointer) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!all_finite(a[i], pointer)) {
      pointer.insert(0, "/" + std::to_string(i));
      return false;
    }
  }
  return true;
}

/// True when every number in `o` is finite; otherwise `pointer` is where the first one is not.
[[nodiscard]] inline bool all_finite(const boost::json::object& o, std::string& pointer) {
  for (const auto& [k, e] : o) {
    if (!all_finite(e, pointer)) {
      pointer.insert(0, "/" + pointer_token(k));
      return false;
    }
  }
  return true;
}

/// True when every number in `v` is finite; otherwise `pointer` is where the first one is not.
[[nodiscard]] inline bool all_finite(const boost::json::value& v, std::string& pointer) {
  if (v.is_double()) return std::isfinite(v.get_double());
  if (const auto* a = v.if_array()) return all_finite(*a, pointer);
  if (const auto* o = v.if_object()) return all_finite(*o, pointer);
  return true;
}

/// The text of the next number token of `text` from `at` (outside strings), `at` moved past it;
/// empty when there is none.
[[nodiscard]] inline std::string_view next_json_number(std::string_view text, std::size_t& at) {
  const auto in_number = [](char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
  };
  while (at < text.size()) {
    const char c = text[at];
    if (c == '"') {
      for (++at; at < text.size() && text[at] != '"'; ++at) {
        if (text[at] == '\\') ++at;
      }
      ++at;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const std::size_t begin = at;
      while (at < text.size() && in_number(text[at])) ++at;
      return text.substr(begin, at - begin);
    } else {
      ++at;
    }
  }
  return {};
}

/// Reads every double of `v` again from its text (the numbers of `text` from `at`, in document
/// order), correctly rounded; a text out of a double's range is left as Boost read it.
inline void read_doubles_exactly(std::string_view text, std::size_t& at, boost::json::value& v) {
  if (v.is_double() || v.is_int64() || v.is_uint64()) {
    const std::string_view number = next_json_number(text, at);
    if (!v.is_double()) return;
    double exact = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), exact);
    if (ec == std::errc() && end == number.data() + number.size()) v = exact;
  } else if (auto* a = v.if_array()) {
    for (auto& e : *a) read_doubles_exactly(text, at, e);
  } else if (auto* o = v.if_object()) {
    for (auto& kv : *o) read_doubles_exactly(text, at, kv.value());
  }
}

/// Parses JSON text strictly (see the top of this file). Every error is Errc::parse_error and
/// names `source:line:column` or `source: <JSON pointer>`.
[[nodiscard]] inline Result<boost::json::value> parse_json(std::string_view text,
                                                           std::string_view source) {
  boost::json::stream_parser p;
  boost::system::error_code ec;
  const std::size_t used = p.write_some(text.data(), text.size(), ec);
  if (!ec && used < text.size()) {
    return make_error(Errc::parse_error, json_position(text, used, source) +
                                             ": unexpected data after the JSON document");
  }
  if (!ec) p.finish(ec);
  if (ec) {
    const std::size_t at = std::min(used, text.size());
    return make_error(Errc::parse_error, json_position(text, at, source) +
                                             ": expected well-formed JSON (" + ec.message() +
                                             " at byte " + std::to_string(at) +
                                             (text.empty()        ? "; the file is empty"
                                              : at >= text.size() ? "; the file looks truncated"
                                                                  : "") +
                                             ")");
  }
  boost::json::value value = p.release();
  std::string key;
  if (const std::size_t at = find_duplicate_key(text, key); at != std::string_view::npos) {
    return make_error(Errc::parse_error, json_position(text, at, source) + ": duplicate key \"" +
                                             key.substr(0, 80) +
                                             "\" (each key may appear once in an object)");
  }
  std::size_t at = 0;
  read_doubles_exactly(text, at, value);
  std::string pointer;
  if (!all_finite(value, pointer)) {
    return make_error(Errc::parse_error,
                      std::string(source) + ": " + pointer +
                          ": a number out of range (not finite as a double; expected a finite "
                          "number)");
  }
  return value;
}

}  // namespace aoe::detail

#endif  // AOE_IO_PARSE_JSON_HPP
