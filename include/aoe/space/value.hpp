// One level of a parameter: an integer, a real number or a text.
#ifndef AOE_SPACE_VALUE_HPP
#define AOE_SPACE_VALUE_HPP

#include "aoe/core/assert.hpp"
#include "aoe/core/math.hpp"

#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace aoe {

/// A parameter level as it is stored in repositories and result files. Integers stay exact;
/// `numeric()` gives the number constraints and encodings work on.
class Value {
 public:
  Value() = default;
  template <std::integral T>
  Value(T v) : integer_(static_cast<std::int64_t>(v)) {}  // NOLINT(google-explicit-constructor)
  template <std::floating_point T>
  Value(T v)  // NOLINT(google-explicit-constructor)
      : kind_(Kind::real), real_(static_cast<double>(v)) {}
  Value(std::string v)  // NOLINT(google-explicit-constructor)
      : kind_(Kind::text), text_(std::move(v)) {}
  Value(const char* v) : kind_(Kind::text), text_(v) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool is_integer() const noexcept { return kind_ == Kind::integer; }
  [[nodiscard]] bool is_real() const noexcept { return kind_ == Kind::real; }
  [[nodiscard]] bool is_text() const noexcept { return kind_ == Kind::text; }
  [[nodiscard]] bool is_number() const noexcept { return kind_ != Kind::text; }

  /// The integer; a real is rounded. Precondition: is_number().
  [[nodiscard]] std::int64_t as_integer() const {
    AOE_ASSERT(is_number(), "Value::as_integer of a text");
    if (is_integer()) return integer_;
    return static_cast<std::int64_t>(math::llround(real_));
  }
  /// The number as a double. Precondition: is_number().
  [[nodiscard]] double as_real() const {
    AOE_ASSERT(is_number(), "Value::as_real of a text");
    return is_integer() ? static_cast<double>(integer_) : real_;
  }
  /// The text. Precondition: is_text().
  [[nodiscard]] const std::string& as_text() const {
    AOE_ASSERT(is_text(), "Value::as_text of a number");
    return text_;
  }

  /// "16", "0.5", "ijk": the shortest text that reads back to the same value.
  [[nodiscard]] std::string to_string() const {
    if (is_integer()) return std::to_string(integer_);
    if (is_real()) {
      char buffer[32];
      for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buffer, sizeof buffer, "%.*g", precision, real_);
        if (std::strtod(buffer, nullptr) == real_) break;
      }
      return buffer;
    }
    return text_;
  }

  /// Same kind and same value; an integer and a real are equal when the numbers are.
  friend bool operator==(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) {
      if (a.is_integer() && b.is_integer()) return a.integer_ == b.integer_;
      return a.as_real() == b.as_real();
    }
    return a.is_text() && b.is_text() && a.text_ == b.text_;
  }

 private:
  // One of three, said by `kind_`; a tag and three members rather than std::variant, whose
  // machinery every translation unit that includes a space would otherwise instantiate.
  enum class Kind : std::uint8_t { integer, real, text };
  Kind kind_ = Kind::integer;
  std::int64_t integer_ = 0;
  double real_ = 0;
  std::string text_;
};

/// A parameter's name with its value: how a configuration is stored outside a space.
struct NamedValue {
  std::string name;
  Value value;
  friend bool operator==(const NamedValue&, const NamedValue&) = default;
};

}  // namespace aoe

#endif  // AOE_SPACE_VALUE_HPP
