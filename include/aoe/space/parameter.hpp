// Tunable parameters: integer ranges with a step, powers of two, explicit value lists, enums and
// flags. Each is an ordered list of levels; neighbouring levels are "adjacent" for search.
#ifndef AOE_SPACE_PARAMETER_HPP
#define AOE_SPACE_PARAMETER_HPP

#include "aoe/core/error.hpp"
#include "aoe/space/value.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace aoe {

/// What a parameter's levels are; decides how the typed edge converts them.
enum class ParameterKind : std::uint8_t { integer, real, text, enumeration, flag };

/// A named, ordered, finite list of levels.
class Parameter {
 public:
  /// Throws `aoe::Error` (invalid_argument) for an empty name, no levels or duplicate levels.
  Parameter(std::string name, ParameterKind kind, std::vector<Value> levels,
            std::vector<double> codes = {})
      : name_(std::move(name)), kind_(kind), levels_(std::move(levels)) {
    if (name_.empty()) throw Error(Errc::invalid_argument, "a parameter needs a name");
    if (levels_.empty()) {
      throw Error(Errc::invalid_argument, "parameter '" + name_ + "' has no values");
    }
    if (levels_.size() > 0xFFFFFFFFULL) {
      throw Error(Errc::invalid_argument, "parameter '" + name_ + "' has too many values");
    }
    // Integers in ascending order (range, pow2) are distinct without comparing every pair, so
    // that a range of 10^6 levels (GDAT's cut positions) costs O(levels), not O(levels²).
    bool ascending_integers = true;
    for (std::size_t i = 0; i < levels_.size() && ascending_integers; ++i) {
      ascending_integers = levels_[i].is_integer() &&
                           (i == 0 || levels_[i - 1].as_integer() < levels_[i].as_integer());
    }
    numeric_.reserve(levels_.size());
    for (std::size_t i = 0; i < levels_.size(); ++i) {
      for (std::size_t j = 0; j < i && !ascending_integers; ++j) {
        if (levels_[j] == levels_[i]) {
          throw Error(Errc::invalid_argument, "parameter '" + name_ + "' lists the value " +
                                                  levels_[i].to_string() + " twice");
        }
      }
      if (!codes.empty()) {
        numeric_.push_back(codes.at(i));
      } else {
        numeric_.push_back(levels_[i].is_number() ? levels_[i].as_real() : static_cast<double>(i));
      }
    }
  }

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] ParameterKind kind() const noexcept { return kind_; }
  [[nodiscard]] std::uint32_t size() const noexcept {
    return static_cast<std::uint32_t>(levels_.size());
  }
  [[nodiscard]] const std::vector<Value>& levels() const noexcept { return levels_; }
  [[nodiscard]] const Value& level(std::uint32_t i) const { return levels_[i]; }
  /// The number constraints see: the value for numbers, the code for enums (its underlying
  /// value when typed), 0/1 for flags, the position for texts.
  [[nodiscard]] double numeric(std::uint32_t i) const noexcept { return numeric_[i]; }

  /// The index of a level, if the parameter has it.
  [[nodiscard]] std::optional<std::uint32_t> find(const Value& v) const {
    for (std::uint32_t i = 0; i < size(); ++i) {
      if (levels_[i] == v) return i;
    }
    return std::nullopt;
  }

 private:
  std::string name_;
  ParameterKind kind_;
  std::vector<Value> levels_;
  std::vector<double> numeric_;
};

/// Integers lo, lo+step, ..., up to hi inclusive.
[[nodiscard]] inline Parameter range(std::string name, std::int64_t lo, std::int64_t hi,
                                     std::int64_t step = 1) {
  if (step <= 0 || hi < lo) {
    throw Error(Errc::invalid_argument, "parameter '" + name + "': range(" + std::to_string(lo) +
                                            ", " + std::to_string(hi) + ", step " +
                                            std::to_string(step) +
                                            ") is empty; expected lo <= hi and step > 0");
  }
  std::vector<Value> levels;
  levels.reserve(static_cast<std::size_t>((hi - lo) / step + 1));
  for (std::int64_t v = lo; v <= hi; v += step) levels.emplace_back(v);
  return {std::move(name), ParameterKind::integer, std::move(levels)};
}

/// Powers of two from lo to hi inclusive (both rounded into the range to powers of two).
[[nodiscard]] inline Parameter pow2(std::string name, std::int64_t lo, std::int64_t hi) {
  std::vector<Value> levels;
  for (std::int64_t v = 1; v > 0 && v <= hi; v *= 2) {
    if (v >= lo) levels.emplace_back(v);
  }
  if (levels.empty()) {
    throw Error(Errc::invalid_argument, "parameter '" + name + "': pow2(" + std::to_string(lo) +
                                            ", " + std::to_string(hi) + ") holds no power of two");
  }
  return {std::move(name), ParameterKind::integer, std::move(levels)};
}

/// An explicit list, in the order given (which is the order "adjacent" refers to).
[[nodiscard]] inline Parameter values(std::string name, std::vector<Value> list) {
  ParameterKind kind = ParameterKind::integer;
  for (const auto& v : list) {
    if (v.is_text()) {
      kind = ParameterKind::text;
      break;
    }
    if (v.is_real()) kind = ParameterKind::real;
  }
  if (kind == ParameterKind::text) {
    for (const auto& v : list) {
      if (!v.is_text()) {
        throw Error(Errc::invalid_argument,
                    "parameter '" + name + "' mixes texts and numbers (" + v.to_string() + ")");
      }
    }
  }
  return {std::move(name), kind, std::move(list)};
}

/// A list of named alternatives; constraints see each one's position.
[[nodiscard]] inline Parameter enumeration(std::string name, std::vector<std::string> labels) {
  std::vector<Value> levels(labels.begin(), labels.end());
  return {std::move(name), ParameterKind::enumeration, std::move(levels)};
}

/// A list of enumerators of a C++ enum, with their labels; constraints and the typed edge see
/// each one's underlying value.
template <class E>
  requires std::is_enum_v<E>
[[nodiscard]] Parameter enumeration(std::string name,
                                    std::vector<std::pair<E, std::string>> items) {
  std::vector<Value> levels;
  std::vector<double> codes;
  for (auto& [e, label] : items) {
    levels.emplace_back(std::move(label));
    codes.push_back(static_cast<double>(static_cast<std::underlying_type_t<E>>(e)));
  }
  return {std::move(name), ParameterKind::enumeration, std::move(levels), std::move(codes)};
}

/// false, true.
[[nodiscard]] inline Parameter flag(std::string name) {
  return {std::move(name), ParameterKind::flag, {Value(0), Value(1)}};
}

}  // namespace aoe

#endif  // AOE_SPACE_PARAMETER_HPP
