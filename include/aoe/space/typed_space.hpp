// A space whose configurations are a user's parameter struct, declared with
// BOOST_HANA_DEFINE_STRUCT: Hana at the declaration site, index vectors everywhere else.
//
//   struct Tile { BOOST_HANA_DEFINE_STRUCT(Tile, (int, m), (int, n), (bool, unroll)); };
//   auto space = aoe::make_space<Tile>(aoe::pow2("m", 8, 256), aoe::pow2("n", 8, 256),
//                                      aoe::flag("unroll"), aoe::product_at_most({"m", "n"},
//                                      4096));
//   Tile t = space.at(configuration);
#ifndef AOE_SPACE_TYPED_SPACE_HPP
#define AOE_SPACE_TYPED_SPACE_HPP

#include "aoe/core/error.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/constraint.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"
#include "aoe/space/value.hpp"

#include <boost/hana/accessors.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/core/to.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>

#include <cmath>
#include <concepts>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace aoe {

/// A struct declared with BOOST_HANA_DEFINE_STRUCT (or BOOST_HANA_ADAPT_STRUCT).
template <class P>
concept parameter_struct = boost::hana::Struct<P>::value;

namespace detail {

template <class T>
inline constexpr bool supported_member_v =
    std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string>;

template <class P>
void for_each_member(auto&& f) {
  boost::hana::for_each(boost::hana::accessors<P>(), [&](auto pair) {
    using Member = std::remove_cvref_t<decltype(boost::hana::second(pair)(std::declval<P&>()))>;
    static_assert(supported_member_v<Member>,
                  "aoe: a parameter struct's members must be arithmetic, enums or std::string");
    f(boost::hana::to<const char*>(boost::hana::first(pair)), boost::hana::second(pair),
      static_cast<Member*>(nullptr));
  });
}

template <class T>
T from_numeric(double x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x != 0;
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(static_cast<std::underlying_type_t<T>>(std::llround(x)));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::llround(x));
  } else {
    return static_cast<T>(x);
  }
}

template <class T>
T from_value(const Parameter& p, std::uint32_t level) {
  if constexpr (std::is_same_v<T, std::string>) {
    return p.level(level).to_string();
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(p.level(level).is_number() ? p.level(level).as_real() : p.numeric(level));
  } else {
    return from_numeric<T>(p.numeric(level));
  }
}

template <class T>
double numeric_of(const T& x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x ? 1.0 : 0.0;
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<double>(static_cast<std::underlying_type_t<T>>(x));
  } else {
    return static_cast<double>(x);
  }
}

template <class T>
bool compatible(const Parameter& p) {
  if constexpr (std::is_same_v<T, std::string>) {
    return true;
  } else if constexpr (std::is_enum_v<T>) {
    return p.kind() == ParameterKind::enumeration || p.kind() == ParameterKind::integer;
  } else {
    return p.kind() != ParameterKind::text;
  }
}

}  // namespace detail

/// Names of the members of P, in declaration order.
template <parameter_struct P>
[[nodiscard]] std::vector<std::string> member_names() {
  std::vector<std::string> names;
  detail::for_each_member<P>([&](const char* name, auto, auto) { names.emplace_back(name); });
  return names;
}

/// The struct for a configuration of a space whose parameters are P's members, in order (as
/// `make_space<P>` builds it).
template <parameter_struct P>
[[nodiscard]] P to_struct(const Space& space, const Configuration& c) {
  P out{};
  std::size_t d = 0;
  detail::for_each_member<P>([&](const char*, auto accessor, auto* tag) {
    using Member = std::remove_pointer_t<decltype(tag)>;
    accessor(out) = detail::from_value<Member>(space.parameter(d), c[d]);
    ++d;
  });
  return out;
}

/// A constraint on the whole struct: `aoe::where<Tile>([](const Tile& t) { ... }, "text")`.
/// Members that are std::string read as empty here; constrain those with `predicate`.
template <parameter_struct P, class F>
  requires std::predicate<const F&, const P&>
[[nodiscard]] Constraint where(F test, std::string description) {
  return predicate(
      member_names<P>(),
      [test = std::move(test)](std::span<const double> v) {
        P p{};
        std::size_t d = 0;
        detail::for_each_member<P>([&](const char*, auto accessor, auto* tag) {
          using Member = std::remove_pointer_t<decltype(tag)>;
          if constexpr (!std::is_same_v<Member, std::string>) {
            accessor(p) = detail::from_numeric<Member>(v[d]);
          }
          ++d;
        });
        return static_cast<bool>(test(p));
      },
      std::move(description));
}

/// A `Space` whose dimensions are the members of P, in declaration order.
template <parameter_struct P>
class TypedSpace : public Space {
 public:
  /// Throws `aoe::Error` (invalid_argument) when a member has no parameter, a parameter is not
  /// a member, or a parameter's values cannot be stored in its member.
  TypedSpace(std::vector<Parameter> parameters, std::vector<Constraint> constraints)
      : Space(order(std::move(parameters)), std::move(constraints)) {}

  /// The struct for a configuration.
  [[nodiscard]] P at(const Configuration& c) const { return to_struct<P>(*this, c); }

  /// The configuration for a struct, or nullopt when a member's value is not a level.
  [[nodiscard]] std::optional<Configuration> find(const P& p) const {
    Configuration c(dimensions(), 0);
    std::size_t d = 0;
    bool found_all = true;
    detail::for_each_member<P>([&](const char*, auto accessor, auto* tag) {
      using Member = std::remove_pointer_t<decltype(tag)>;
      const Parameter& param = parameter(d);
      std::optional<std::uint32_t> level;
      if constexpr (std::is_same_v<Member, std::string>) {
        level = param.find(Value(accessor(p)));
      } else {
        const double x = detail::numeric_of(accessor(p));
        for (std::uint32_t i = 0; i < param.size() && !level; ++i) {
          if (param.numeric(i) == x) level = i;
        }
      }
      if (level) {
        c[d] = *level;
      } else {
        found_all = false;
      }
      ++d;
    });
    if (!found_all) return std::nullopt;
    return c;
  }
  using Space::find;

 private:
  static std::vector<Parameter> order(std::vector<Parameter> given) {
    std::vector<Parameter> ordered;
    std::vector<bool> used(given.size(), false);
    detail::for_each_member<P>([&](const char* name, auto, auto* tag) {
      using Member = std::remove_pointer_t<decltype(tag)>;
      std::size_t found = given.size();
      for (std::size_t i = 0; i < given.size(); ++i) {
        if (given[i].name() == name) {
          if (found != given.size()) {
            throw Error(Errc::invalid_argument,
                        std::string("two parameters are named '") + name + "'");
          }
          found = i;
        }
      }
      if (found == given.size()) {
        throw Error(Errc::invalid_argument,
                    std::string("member '") + name + "' of the parameter struct has no parameter");
      }
      if (!detail::compatible<Member>(given[found])) {
        throw Error(Errc::invalid_argument, std::string("parameter '") + name +
                                                "' has values its member's type cannot hold");
      }
      used[found] = true;
      ordered.push_back(given[found]);
    });
    for (std::size_t i = 0; i < given.size(); ++i) {
      if (!used[i]) {
        throw Error(Errc::invalid_argument,
                    "parameter '" + given[i].name() + "' is not a member of the parameter struct");
      }
    }
    return ordered;
  }
};

/// Builds a TypedSpace<P> from parameters and constraints given in any order.
template <parameter_struct P, class... Items>
  requires((std::same_as<std::remove_cvref_t<Items>, Parameter> ||
            std::same_as<std::remove_cvref_t<Items>, Constraint>)&&...)
[[nodiscard]] TypedSpace<P> make_space(Items&&... items) {
  std::vector<Parameter> parameters;
  std::vector<Constraint> constraints;
  (
      [&](auto&& item) {
        if constexpr (std::same_as<std::remove_cvref_t<decltype(item)>, Parameter>) {
          parameters.push_back(std::forward<decltype(item)>(item));
        } else {
          constraints.push_back(std::forward<decltype(item)>(item));
        }
      }(std::forward<Items>(items)),
      ...);
  return TypedSpace<P>(std::move(parameters), std::move(constraints));
}

}  // namespace aoe

#endif  // AOE_SPACE_TYPED_SPACE_HPP
