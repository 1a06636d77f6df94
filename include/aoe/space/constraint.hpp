// Constraints over named parameters: analysable helpers (the enumerator checks each as soon as
// its last parameter is assigned, which prunes whole subtrees) and opaque predicates.
#ifndef AOE_SPACE_CONSTRAINT_HPP
#define AOE_SPACE_CONSTRAINT_HPP

#include "aoe/core/math.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace aoe {

/// A copyable, type-erased `bool(std::span<const double>)` for `Constraint::Kind::predicate`:
/// what `std::function` would hold, without `<functional>` in every header that describes a
/// space (it is most of a search policy author's compile time). The callable is called as a
/// non-const lvalue, as `std::function` calls it.
class ConstraintPredicate {
 public:
  ConstraintPredicate() noexcept = default;

  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, ConstraintPredicate>)
  &&std::is_invocable_r_v<bool, std::decay_t<F>&, std::span<const double>> ConstraintPredicate(
      F&& f)  // NOLINT(google-explicit-constructor): a lambda converts
      : held_(new Held<std::decay_t<F>>(std::forward<F>(f))) {}

  ConstraintPredicate(const ConstraintPredicate& other)
      : held_(other.held_ != nullptr ? other.held_->clone() : nullptr) {}
  ConstraintPredicate(ConstraintPredicate&& other) noexcept : held_(other.held_) {
    other.held_ = nullptr;
  }
  ConstraintPredicate& operator=(ConstraintPredicate other) noexcept {
    std::swap(held_, other.held_);
    return *this;
  }
  ~ConstraintPredicate() { delete held_; }

  [[nodiscard]] explicit operator bool() const noexcept { return held_ != nullptr; }
  /// False for an empty predicate (no configuration satisfies a condition that is not there).
  [[nodiscard]] bool operator()(std::span<const double> values) const {
    return held_ != nullptr && held_->call(values);
  }

 private:
  struct Base {
    Base() = default;
    Base(const Base&) = delete;
    Base& operator=(const Base&) = delete;
    virtual ~Base() = default;
    [[nodiscard]] virtual bool call(std::span<const double> values) = 0;
    [[nodiscard]] virtual Base* clone() const = 0;
  };
  template <class F>
  struct Held final : Base {
    template <class G>
    explicit Held(G&& g) : f(std::forward<G>(g)) {}
    bool call(std::span<const double> values) override { return static_cast<bool>(f(values)); }
    Base* clone() const override { return new Held(f); }
    F f;
  };
  Base* held_ = nullptr;
};

/// A condition on the numeric values of some parameters (see `Parameter::numeric`).
class Constraint {
 public:
  enum class Kind : std::uint8_t {
    divides,          ///< value(a) divides the constant
    divides_other,    ///< value(a) divides value(b)
    multiple_of,      ///< value(a) is a multiple of the constant
    product_at_most,  ///< product of the values <= constant
    sum_at_most,      ///< sum of the values <= constant
    predicate,        ///< an opaque function of the values
  };
  using Predicate = ConstraintPredicate;

  Constraint(Kind kind, std::vector<std::string> names, double bound, std::string description,
             Predicate predicate = {})
      : kind_(kind),
        names_(std::move(names)),
        bound_(bound),
        description_(std::move(description)),
        predicate_(std::move(predicate)) {}

  [[nodiscard]] Kind kind() const noexcept { return kind_; }
  /// The parameters it reads, in the order `test` receives their values.
  [[nodiscard]] const std::vector<std::string>& names() const noexcept { return names_; }
  [[nodiscard]] double bound() const noexcept { return bound_; }
  /// For a person: "tile_m * tile_n <= 4096".
  [[nodiscard]] const std::string& description() const noexcept { return description_; }

  /// Whether values (one per name, in order) satisfy the constraint.
  [[nodiscard]] bool test(std::span<const double> v) const {
    switch (kind_) {
      case Kind::divides: return v[0] != 0 && math::fmod(bound_, v[0]) == 0;
      case Kind::divides_other: return v[0] != 0 && math::fmod(v[1], v[0]) == 0;
      case Kind::multiple_of: return math::fmod(v[0], bound_) == 0;
      case Kind::product_at_most: {
        double p = 1;
        for (const double x : v) p *= x;
        return p <= bound_;
      }
      case Kind::sum_at_most: {
        double s = 0;
        for (const double x : v) s += x;
        return s <= bound_;
      }
      case Kind::predicate: return predicate_(v);
    }
    return false;
  }

 private:
  Kind kind_;
  std::vector<std::string> names_;
  double bound_;
  std::string description_;
  Predicate predicate_;
};

namespace detail {
inline std::string number_text(double x) {
  return x == math::floor(x) && math::fabs(x) < 1e15 ? std::to_string(static_cast<long long>(x))
                                                     : std::to_string(x);
}
inline std::string joined(const std::vector<std::string>& names, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? separator : "") + names[i];
  return out;
}
}  // namespace detail

/// `name` divides n (a tile that divides the problem size).
[[nodiscard]] inline Constraint divides(std::string name, double n) {
  std::string text = name + " divides " + detail::number_text(n);
  return {Constraint::Kind::divides, {std::move(name)}, n, std::move(text)};
}

/// `name` divides `other`.
[[nodiscard]] inline Constraint divides(std::string name, std::string other) {
  std::string text = name + " divides " + other;
  return {Constraint::Kind::divides_other, {std::move(name), std::move(other)}, 0, std::move(text)};
}

/// `name` is a multiple of k.
[[nodiscard]] inline Constraint multiple_of(std::string name, double k) {
  std::string text = name + " is a multiple of " + detail::number_text(k);
  return {Constraint::Kind::multiple_of, {std::move(name)}, k, std::move(text)};
}

/// `name` is a multiple of `other`.
[[nodiscard]] inline Constraint multiple_of(std::string name, std::string other) {
  std::string text = name + " is a multiple of " + other;
  return {Constraint::Kind::divides_other, {std::move(other), std::move(name)}, 0, std::move(text)};
}

/// The product of the named parameters is at most `bound` (a tile that fits a buffer).
[[nodiscard]] inline Constraint product_at_most(std::vector<std::string> names, double bound) {
  std::string text = detail::joined(names, " * ") + " <= " + detail::number_text(bound);
  return {Constraint::Kind::product_at_most, std::move(names), bound, std::move(text)};
}

/// The sum of the named parameters is at most `bound`.
[[nodiscard]] inline Constraint sum_at_most(std::vector<std::string> names, double bound) {
  std::string text = detail::joined(names, " + ") + " <= " + detail::number_text(bound);
  return {Constraint::Kind::sum_at_most, std::move(names), bound, std::move(text)};
}

/// An opaque condition on the named parameters' numeric values, in the order named.
[[nodiscard]] inline Constraint predicate(std::vector<std::string> names,
                                          Constraint::Predicate test, std::string description) {
  return {Constraint::Kind::predicate, std::move(names), 0, std::move(description),
          std::move(test)};
}

}  // namespace aoe

#endif  // AOE_SPACE_CONSTRAINT_HPP
