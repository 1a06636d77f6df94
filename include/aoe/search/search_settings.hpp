// A policy chosen by name with some of its options set, as text: "bayesian:initial_samples=5:
// local_every=3" (make_search, aoe-bench --strategy). This header parses the text and sets
// fields of an options struct from a table of them; by_name.hpp holds each policy's table.
#ifndef AOE_SEARCH_SEARCH_SETTINGS_HPP
#define AOE_SEARCH_SEARCH_SETTINGS_HPP

#include "aoe/core/error.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>
#include <vector>

namespace aoe {

/// One `KEY=VALUE` of a search spec.
struct SearchSetting {
  std::string key;
  std::string value;
};

/// A policy's name and the settings given after it: "NAME[:KEY=VALUE]...".
struct SearchSpec {
  std::string name;
  std::vector<SearchSetting> settings{};
};

/// Splits "NAME[:KEY=VALUE]..." (no spaces) into a `SearchSpec`. Errors
/// (`Errc::invalid_argument`, naming the spec): an empty name or setting, a setting without
/// '=' or without a key or value, a key given twice. The name and keys are not checked here.
[[nodiscard]] inline Result<SearchSpec> parse_search_spec(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return make_error(Errc::invalid_argument, "search policy '" + std::string(text) + "': " + why);
  };
  SearchSpec spec;
  const auto colon = text.find(':');
  spec.name = std::string(text.substr(0, colon));
  if (spec.name.empty()) return bad("expected a policy's name before the settings");
  if (colon == std::string_view::npos) return spec;
  std::string_view rest = text.substr(colon + 1);
  while (true) {
    const auto next = rest.find(':');
    const std::string_view item = rest.substr(0, next);
    const auto eq = item.find('=');
    if (item.empty()) return bad("an empty setting (expected KEY=VALUE after each ':')");
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
      return bad("setting '" + std::string(item) + "': expected KEY=VALUE");
    }
    SearchSetting s{std::string(item.substr(0, eq)), std::string(item.substr(eq + 1))};
    for (const auto& earlier : spec.settings) {
      if (earlier.key == s.key) return bad("setting '" + s.key + "' is given twice");
    }
    spec.settings.push_back(std::move(s));
    if (next == std::string_view::npos) break;
    rest = rest.substr(next + 1);
  }
  return spec;
}

/// A field of options struct `O` that a spec may set, with the closed range of values it takes
/// (`low`, `high`; for `bool`, ignored).
template <class O>
struct SettingField {
  std::string_view key;
  std::variant<std::size_t O::*, double O::*, bool O::*> field;
  double low = 0;
  double high = std::numeric_limits<double>::max();
};

namespace detail {

/// A setting's value as the error and the key list write it (6 significant digits at most).
[[nodiscard]] inline std::string format_setting(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
  return ec == std::errc{} ? std::string(buf, end) : std::string("?");
}

/// `value` read as the field's type, in its range, or why not.
template <class T>
[[nodiscard]] std::string parse_setting(std::string_view value, double low, double high, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (value == "true" || value == "1")
      out = true;
    else if (value == "false" || value == "0")
      out = false;
    else
      return "expected true or false";
    return "";
  } else {
    T v{};
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    const bool whole = std::is_same_v<T, std::size_t>;
    if (ec != std::errc{} || end != value.data() + value.size()) {
      return whole ? "expected a whole number" : "expected a number";
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(v)) return "expected a finite number";  // from_chars reads nan, inf
    }
    if (static_cast<double>(v) < low || static_cast<double>(v) > high) {
      std::string range = "expected at least " + format_setting(low);
      if (high < std::numeric_limits<double>::max()) {
        range = "expected " + format_setting(low) + " to " + format_setting(high);
      }
      return range;
    }
    out = v;
    return "";
  }
}

}  // namespace detail

/// Each key of `fields` with its value in `defaults`: "initial_samples (10), ..." (the error of
/// an unknown key lists them).
template <class O>
[[nodiscard]] std::string setting_keys(std::span<const SettingField<O>> fields, const O& defaults) {
  std::string out;
  for (const auto& f : fields) {
    out += (out.empty() ? "" : ", ") + std::string(f.key) + " (";
    std::visit(
        [&](auto member) {
          const auto v = defaults.*member;
          if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, bool>) {
            out += v ? "true" : "false";
          } else {
            out += detail::format_setting(static_cast<double>(v));
          }
        },
        f.field);
    out += ")";
  }
  return out;
}

/// Sets each of `settings` on `options` through `fields`; the first key that is not one of
/// them, or value that is not of its type or range, is the error (`Errc::invalid_argument`),
/// naming `policy`, the key and the value, and for an unknown key every valid one with its
/// default.
template <class O>
[[nodiscard]] Result<void> apply_settings(O& options, std::string_view policy,
                                          std::span<const SearchSetting> settings,
                                          std::span<const SettingField<O>> fields) {
  for (const auto& s : settings) {
    const SettingField<O>* field = nullptr;
    for (const auto& f : fields) {
      if (f.key == s.key) field = &f;
    }
    const std::string where =
        "search policy '" + std::string(policy) + "': setting '" + s.key + "'";
    if (field == nullptr) {
      if (fields.empty()) {
        return make_error(Errc::invalid_argument, "search policy '" + std::string(policy) +
                                                      "' takes no settings (given '" + s.key +
                                                      "')");
      }
      return make_error(
          Errc::invalid_argument,
          where + " is not one of its settings: expected one of " + setting_keys(fields, O{}));
    }
    const std::string why = std::visit(
        [&](auto member) {
          return detail::parse_setting(s.value, field->low, field->high, options.*member);
        },
        field->field);
    if (!why.empty()) {
      return make_error(Errc::invalid_argument, where + " = '" + s.value + "': " + why);
    }
  }
  return {};
}

}  // namespace aoe

#endif  // AOE_SEARCH_SEARCH_SETTINGS_HPP
