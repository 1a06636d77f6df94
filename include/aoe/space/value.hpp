// One level of a parameter: an integer, a real number or a text.
#ifndef AOE_SPACE_VALUE_HPP
#define AOE_SPACE_VALUE_HPP

#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace aoe {

/// A parameter level as it is stored in repositories and result files. Integers stay exact;
/// `numeric()` gives the number constraints and encodings work on.
class Value {
 public:
  Value() : v_(std::int64_t{0}) {}
  template <std::integral T>
  Value(T v) : v_(static_cast<std::int64_t>(v)) {}  // NOLINT(google-explicit-constructor)
  template <std::floating_point T>
  Value(T v) : v_(static_cast<double>(v)) {}  // NOLINT(google-explicit-constructor)
  Value(std::string v) : v_(std::move(v)) {}  // NOLINT(google-explicit-constructor)
  Value(const char* v) : v_(std::string(v)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool is_integer() const noexcept { return v_.index() == 0; }
  [[nodiscard]] bool is_real() const noexcept { return v_.index() == 1; }
  [[nodiscard]] bool is_text() const noexcept { return v_.index() == 2; }
  [[nodiscard]] bool is_number() const noexcept { return v_.index() != 2; }

  /// The integer; a real is rounded. Precondition: is_number().
  [[nodiscard]] std::int64_t as_integer() const {
    if (const auto* i = std::get_if<std::int64_t>(&v_)) return *i;
    return static_cast<std::int64_t>(std::llround(std::get<double>(v_)));
  }
  /// The number as a double. Precondition: is_number().
  [[nodiscard]] double as_real() const {
    if (const auto* i = std::get_if<std::int64_t>(&v_)) return static_cast<double>(*i);
    return std::get<double>(v_);
  }
  /// The text. Precondition: is_text().
  [[nodiscard]] const std::string& as_text() const { return std::get<std::string>(v_); }

  /// "16", "0.5", "ijk": the shortest text that reads back to the same value.
  [[nodiscard]] std::string to_string() const {
    if (const auto* i = std::get_if<std::int64_t>(&v_)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&v_)) {
      char buffer[32];
      for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buffer, sizeof buffer, "%.*g", precision, *d);
        if (std::strtod(buffer, nullptr) == *d) break;
      }
      return buffer;
    }
    return std::get<std::string>(v_);
  }

  [[nodiscard]] const std::variant<std::int64_t, double, std::string>& storage() const noexcept {
    return v_;
  }

  /// Same kind and same value; an integer and a real are equal when the numbers are.
  friend bool operator==(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) {
      if (a.is_integer() && b.is_integer()) return a.as_integer() == b.as_integer();
      return a.as_real() == b.as_real();
    }
    return a.v_ == b.v_;
  }

 private:
  std::variant<std::int64_t, double, std::string> v_;
};

/// A parameter's name with its value: how a configuration is stored outside a space.
struct NamedValue {
  std::string name;
  Value value;
  friend bool operator==(const NamedValue&, const NamedValue&) = default;
};

}  // namespace aoe

#endif  // AOE_SPACE_VALUE_HPP
