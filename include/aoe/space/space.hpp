// The runtime search space: parameters and constraints, with everything a search policy needs
// (validity, sampling, neighbours, unit-cube encoding, lazy enumeration) and nothing typed.
#ifndef AOE_SPACE_SPACE_HPP
#define AOE_SPACE_SPACE_HPP

#include "aoe/core/assert.hpp"
#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/constraint.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/value.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// Which configurations count as neighbours of a configuration.
enum class Neighbourhood : std::uint8_t {
  hamming,   ///< differ in exactly one parameter, by any amount
  adjacent,  ///< differ in exactly one parameter, by one level
  box,       ///< every parameter moved by at most one level (Kernel Tuner's "adjacent")
};

namespace detail {

/// The smallest name that two parameters share, if any: the names come off a heap in order and
/// neighbours are compared, O(n log n) (a generated space may have thousands of parameters).
/// A priority queue rather than <algorithm>'s sort keeps the space headers light.
[[nodiscard]] inline std::optional<std::string_view> smallest_repeated_name(
    const std::vector<Parameter>& parameters) {
  std::vector<std::string_view> names;
  names.reserve(parameters.size());
  for (const auto& p : parameters) names.emplace_back(p.name());
  std::priority_queue<std::string_view> largest_first(names.begin(), names.end());
  std::optional<std::string_view> repeated;
  while (!largest_first.empty()) {
    const std::string_view name = largest_first.top();
    largest_first.pop();
    if (!largest_first.empty() && largest_first.top() == name) repeated = name;
  }
  return repeated;
}

}  // namespace detail

/// Raw and valid sizes of a space.
struct SpaceSize {
  double raw = 0;      ///< product of the cardinalities
  double valid = 0;    ///< configurations that satisfy every constraint
  bool exact = false;  ///< false: `valid` is an estimate from uniform samples
};

/// Parameters and constraints. Configurations are index vectors (see configuration.hpp); the
/// space is never materialised, so spaces of 10^9 raw points and more are searched lazily.
class Space {
 public:
  Space() = default;

  /// Throws `aoe::Error` (invalid_argument) for two parameters with one name or a constraint
  /// that names an unknown parameter.
  explicit Space(std::vector<Parameter> parameters, std::vector<Constraint> constraints = {})
      : parameters_(std::move(parameters)), constraints_(std::move(constraints)) {
    if (const auto twice = detail::smallest_repeated_name(parameters_)) {
      throw Error(Errc::invalid_argument,
                  "the space has two parameters named '" + std::string(*twice) + "'");
    }
    checks_at_.assign(parameters_.size(), {});
    for (std::size_t c = 0; c < constraints_.size(); ++c) {
      std::vector<std::size_t> dims;
      for (const auto& name : constraints_[c].names()) {
        const auto d = index_of(name);
        if (!d) {
          throw Error(Errc::invalid_argument, "constraint '" + constraints_[c].description() +
                                                  "' names '" + name +
                                                  "', which is not a parameter of the space");
        }
        dims.push_back(*d);
      }
      if (dims.empty()) {
        throw Error(Errc::invalid_argument,
                    "constraint '" + constraints_[c].description() + "' names no parameter");
      }
      std::size_t last = 0;
      for (const std::size_t d : dims) last = d > last ? d : last;
      checks_at_[last].push_back(c);
      constraint_dims_.push_back(std::move(dims));
    }
  }

  [[nodiscard]] std::size_t dimensions() const noexcept { return parameters_.size(); }
  [[nodiscard]] const std::vector<Parameter>& parameters() const noexcept { return parameters_; }
  [[nodiscard]] const Parameter& parameter(std::size_t d) const { return parameters_[d]; }
  [[nodiscard]] const std::vector<Constraint>& constraints() const noexcept { return constraints_; }
  [[nodiscard]] std::uint32_t cardinality(std::size_t d) const { return parameters_[d].size(); }

  [[nodiscard]] std::optional<std::size_t> index_of(std::string_view name) const noexcept {
    for (std::size_t d = 0; d < parameters_.size(); ++d) {
      if (parameters_[d].name() == name) return d;
    }
    return std::nullopt;
  }

  /// Product of the cardinalities (a double: it may exceed 2^64).
  [[nodiscard]] double raw_size() const noexcept {
    double n = 1;
    for (const auto& p : parameters_) n *= p.size();
    return n;
  }

  /// Every index is below its parameter's cardinality.
  [[nodiscard]] bool in_bounds(const Configuration& c) const noexcept {
    if (c.size() != parameters_.size()) return false;
    for (std::size_t d = 0; d < c.size(); ++d) {
      if (c[d] >= parameters_[d].size()) return false;
    }
    return true;
  }

  /// In bounds and every constraint holds.
  [[nodiscard]] bool is_valid(const Configuration& c) const {
    return in_bounds(c) && satisfies_constraints(c);
  }

  /// The first constraint the configuration violates, if any (for messages).
  [[nodiscard]] const Constraint* violated(const Configuration& c) const {
    for (std::size_t k = 0; k < constraints_.size(); ++k) {
      if (!check(k, c)) return &constraints_[k];
    }
    return nullptr;
  }

  [[nodiscard]] const Value& value(const Configuration& c, std::size_t d) const {
    return parameters_[d].level(c[d]);
  }
  [[nodiscard]] double numeric(const Configuration& c, std::size_t d) const {
    return parameters_[d].numeric(c[d]);
  }

  /// Name and value of every parameter: how repositories and reports store a configuration.
  [[nodiscard]] std::vector<NamedValue> named_values(const Configuration& c) const {
    std::vector<NamedValue> out;
    out.reserve(c.size());
    for (std::size_t d = 0; d < c.size(); ++d) out.push_back({parameters_[d].name(), value(c, d)});
    return out;
  }

  /// The configuration with these values (in any order), or nullopt if a parameter is missing
  /// or a value is not one of its levels.
  [[nodiscard]] std::optional<Configuration> find(std::span<const NamedValue> values) const {
    Configuration c(parameters_.size(), 0);
    std::vector<bool> seen(parameters_.size(), false);
    for (const auto& nv : values) {
      const auto d = index_of(nv.name);
      if (!d) return std::nullopt;
      const auto i = parameters_[*d].find(nv.value);
      if (!i) return std::nullopt;
      c[*d] = *i;
      seen[*d] = true;
    }
    for (const bool given : seen) {
      if (!given) return std::nullopt;
    }
    return c;
  }

  /// "tile_m=64, tile_n=32, order=ikj".
  [[nodiscard]] std::string to_string(const Configuration& c) const {
    std::string out;
    for (std::size_t d = 0; d < c.size() && d < parameters_.size(); ++d) {
      if (d) out += ", ";
      out += parameters_[d].name() + "=" + value(c, d).to_string();
    }
    return out;
  }

  /// Mixed-radix position of a configuration among all raw points (parameter 0 slowest).
  /// Precondition: raw_size() < 2^64.
  [[nodiscard]] std::uint64_t rank(const Configuration& c) const {
    std::uint64_t r = 0;
    for (std::size_t d = 0; d < c.size(); ++d) r = r * parameters_[d].size() + c[d];
    return r;
  }
  [[nodiscard]] Configuration unrank(std::uint64_t r) const {
    Configuration c(parameters_.size(), 0);
    for (std::size_t d = parameters_.size(); d-- > 0;) {
      c[d] = static_cast<std::uint32_t>(r % parameters_[d].size());
      r /= parameters_[d].size();
    }
    return c;
  }

  /// A uniformly drawn raw point (it may violate constraints).
  [[nodiscard]] Configuration sample_raw(Rng& rng) const {
    Configuration c(parameters_.size());
    draw_raw(rng, c);
    return c;
  }

  /// A random valid configuration, or nullopt if none was found. Uniform over the valid points
  /// when one in `rejection_tries` raw points or more is valid (rejection sampling); otherwise
  /// a randomised depth-first search that always finds one if the space has one within
  /// `max_visits` nodes, but favours points in sparse regions.
  [[nodiscard]] std::optional<Configuration> sample(Rng& rng, std::size_t rejection_tries = 512,
                                                    std::size_t max_visits = 1'000'000) const {
    // The raw points of sample_raw, drawn into one vector: a space whose constraints reject most
    // points is sampled hundreds of times per valid one.
    Configuration c(parameters_.size());
    for (std::size_t t = 0; t < rejection_tries; ++t) {
      draw_raw(rng, c);
      if (satisfies_constraints(c)) return c;
    }
    for (auto& level : c) level = 0U;
    std::size_t visits = 0;
    if (random_descent(rng, c, 0, visits, max_visits)) return c;
    return std::nullopt;
  }

  /// Valid neighbours of `c`, in a fixed order (parameter by parameter, level by level).
  [[nodiscard]] std::vector<Configuration> neighbours(const Configuration& c,
                                                      Neighbourhood kind) const {
    std::vector<Configuration> out;
    if (kind == Neighbourhood::box) {
      box_neighbours(c, out);
      return out;
    }
    for (std::size_t d = 0; d < c.size(); ++d) {
      Configuration n = c;
      const std::uint32_t card = parameters_[d].size();
      if (kind == Neighbourhood::hamming) {
        for (std::uint32_t i = 0; i < card; ++i) {
          if (i == c[d]) continue;
          n[d] = i;
          if (is_valid(n)) out.push_back(n);
        }
      } else {
        if (c[d] > 0) {
          n[d] = c[d] - 1;
          if (is_valid(n)) out.push_back(n);
        }
        if (c[d] + 1 < card) {
          n[d] = c[d] + 1;
          if (is_valid(n)) out.push_back(n);
        }
      }
    }
    return out;
  }

  /// One valid neighbour drawn at random without listing them all (tries `tries` random moves,
  /// then falls back to the full list). Nullopt when `c` has no valid neighbour.
  [[nodiscard]] std::optional<Configuration> random_neighbour(const Configuration& c,
                                                              Neighbourhood kind, Rng& rng,
                                                              std::size_t tries = 64) const {
    if (parameters_.empty()) return std::nullopt;
    for (std::size_t t = 0; t < tries; ++t) {
      Configuration n = c;
      if (kind == Neighbourhood::box) {
        bool moved = false;
        for (std::size_t d = 0; d < n.size(); ++d) {
          const auto step = static_cast<int>(rng.below(3)) - 1;
          const auto next = static_cast<std::int64_t>(n[d]) + step;
          if (next >= 0 && next < parameters_[d].size()) {
            moved = moved || step != 0;
            n[d] = static_cast<std::uint32_t>(next);
          }
        }
        if (!moved) continue;
      } else {
        const std::size_t d = rng.below(n.size());
        const std::uint32_t card = parameters_[d].size();
        if (card < 2) continue;
        if (kind == Neighbourhood::hamming) {
          auto i = static_cast<std::uint32_t>(rng.below(card - 1));
          n[d] = i >= c[d] ? i + 1 : i;
        } else {
          const bool up = rng.below(2) == 1;
          if (up && c[d] + 1 < card) {
            n[d] = c[d] + 1;
          } else if (!up && c[d] > 0) {
            n[d] = c[d] - 1;
          } else {
            continue;
          }
        }
      }
      if (is_valid(n)) return n;
    }
    auto all = neighbours(c, kind);
    if (all.empty()) return std::nullopt;
    return all[rng.below(all.size())];
  }

  /// Unit-cube coordinates: (index + 0.5) / cardinality per parameter.
  [[nodiscard]] std::vector<double> encode(const Configuration& c) const {
    std::vector<double> x(c.size());
    for (std::size_t d = 0; d < c.size(); ++d) {
      x[d] = (c[d] + 0.5) / parameters_[d].size();
    }
    return x;
  }

  /// The raw point whose cell contains x (coordinates are clamped into [0, 1]).
  [[nodiscard]] Configuration decode(std::span<const double> x) const {
    AOE_ASSERT(x.size() == parameters_.size(), "decode: one coordinate per parameter");
    Configuration c(parameters_.size());
    for (std::size_t d = 0; d < c.size(); ++d) {
      const std::uint32_t card = parameters_[d].size();
      const double clamped = x[d] < 0.0 ? 0.0 : (1.0 < x[d] ? 1.0 : x[d]);
      const auto cell = static_cast<std::uint32_t>(clamped * card);
      c[d] = cell < card - 1 ? cell : card - 1;
    }
    return c;
  }

  /// Lazy, ordered enumeration of the valid configurations (parameter 0 slowest). Each
  /// constraint is checked as soon as its last parameter is assigned, so subtrees that violate
  /// it are skipped whole.
  class Enumerator {
   public:
    explicit Enumerator(const Space& space) : space_(&space) {}

    /// Writes the next valid configuration into `out`; false when there are no more.
    bool next(Configuration& out) {
      const std::size_t dims = space_->dimensions();
      if (done_) return false;
      if (dims == 0) {
        done_ = true;
        out.clear();
        return true;
      }
      std::size_t d = 0;
      if (!started_) {
        started_ = true;
        current_.assign(dims, 0);
      } else {
        d = dims - 1;
        ++current_[d];
      }
      while (true) {
        if (current_[d] >= space_->cardinality(d)) {
          if (d == 0) {
            done_ = true;
            return false;
          }
          current_[d] = 0;
          --d;
          ++current_[d];
          continue;
        }
        if (!space_->checks_pass_at(d, current_)) {
          ++current_[d];
          continue;
        }
        if (d + 1 == dims) {
          out = current_;
          return true;
        }
        ++d;
        current_[d] = 0;
      }
    }

   private:
    const Space* space_;
    Configuration current_;
    bool started_ = false;
    bool done_ = false;
  };

  [[nodiscard]] Enumerator enumerate() const { return Enumerator(*this); }

  /// Calls f(configuration) for every valid configuration in order; f may return false to stop.
  /// Returns false if f stopped it.
  template <class F>
  bool for_each_valid(F&& f) const {
    Enumerator e(*this);
    Configuration c;
    while (e.next(c)) {
      if constexpr (std::is_same_v<decltype(f(c)), bool>) {
        if (!f(c)) return false;
      } else {
        f(c);
      }
    }
    return true;
  }

  /// Raw and valid size. Counts exactly by pruned enumeration when that visits at most
  /// `max_visits` nodes; otherwise estimates from `samples` uniform raw points.
  [[nodiscard]] SpaceSize size(std::uint64_t max_visits = 20'000'000, std::size_t samples = 200'000,
                               std::uint64_t seed = 0) const {
    SpaceSize s;
    s.raw = raw_size();
    std::uint64_t visits = 0;
    std::uint64_t count = 0;
    Configuration c(parameters_.size(), 0);
    if (parameters_.empty()) return {1, 1, true};
    if (count_valid(c, 0, count, visits, max_visits)) {
      s.valid = static_cast<double>(count);
      s.exact = true;
      return s;
    }
    Rng rng(seed);
    std::size_t hits = 0;
    for (std::size_t i = 0; i < samples; ++i) {
      if (is_valid(sample_raw(rng))) ++hits;
    }
    s.valid = s.raw * static_cast<double>(hits) / static_cast<double>(samples);
    return s;
  }

  /// Whether the constraints whose last parameter is d hold for the first d+1 indices of c.
  [[nodiscard]] bool checks_pass_at(std::size_t d, const Configuration& c) const {
    for (const std::size_t k : checks_at_[d]) {
      if (!check(k, c)) return false;
    }
    return true;
  }

 private:
  /// Every constraint holds for `c`, a configuration in bounds.
  [[nodiscard]] bool satisfies_constraints(const Configuration& c) const {
    for (std::size_t k = 0; k < constraints_.size(); ++k) {
      if (!check(k, c)) return false;
    }
    return true;
  }

  /// Draws each index of `c` (one per parameter) uniformly, parameter 0 first.
  void draw_raw(Rng& rng, Configuration& c) const {
    for (std::size_t d = 0; d < c.size(); ++d) {
      c[d] = static_cast<std::uint32_t>(rng.below(parameters_[d].size()));
    }
  }

  [[nodiscard]] bool check(std::size_t k, const Configuration& c) const {
    const auto& dims = constraint_dims_[k];
    constexpr std::size_t small = 8;
    if (dims.size() <= small) {
      std::array<double, small> v{};
      for (std::size_t i = 0; i < dims.size(); ++i) v[i] = numeric(c, dims[i]);
      return constraints_[k].test(std::span<const double>(v.data(), dims.size()));
    }
    std::vector<double> v(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i) v[i] = numeric(c, dims[i]);
    return constraints_[k].test(v);
  }

  bool random_descent(Rng& rng, Configuration& c, std::size_t d, std::size_t& visits,
                      std::size_t max_visits) const {
    if (d == parameters_.size()) return true;
    const std::uint32_t card = parameters_[d].size();
    const auto start = static_cast<std::uint32_t>(rng.below(card));
    for (std::uint32_t k = 0; k < card; ++k) {
      if (++visits > max_visits) return false;
      c[d] = (start + k) % card;
      if (checks_pass_at(d, c) && random_descent(rng, c, d + 1, visits, max_visits)) return true;
    }
    return false;
  }

  bool count_valid(Configuration& c, std::size_t d, std::uint64_t& count, std::uint64_t& visits,
                   std::uint64_t max_visits) const {
    const std::uint32_t card = parameters_[d].size();
    const bool last = d + 1 == parameters_.size();
    for (std::uint32_t i = 0; i < card; ++i) {
      if (++visits > max_visits) return false;
      c[d] = i;
      if (!checks_pass_at(d, c)) continue;
      if (last) {
        ++count;
      } else if (!count_valid(c, d + 1, count, visits, max_visits)) {
        return false;
      }
    }
    return true;
  }

  void box_neighbours(const Configuration& c, std::vector<Configuration>& out) const {
    Configuration n = c;
    std::vector<int> step(c.size(), -1);
    while (true) {
      bool ok = true;
      bool moved = false;
      for (std::size_t d = 0; d < c.size(); ++d) {
        const auto next = static_cast<std::int64_t>(c[d]) + step[d];
        if (next < 0 || next >= parameters_[d].size()) {
          ok = false;
          break;
        }
        moved = moved || step[d] != 0;
        n[d] = static_cast<std::uint32_t>(next);
      }
      if (ok && moved && is_valid(n)) out.push_back(n);
      std::size_t d = c.size();
      while (d > 0 && step[d - 1] == 1) step[--d] = -1;
      if (d == 0) return;
      ++step[d - 1];
    }
  }

  std::vector<Parameter> parameters_;
  std::vector<Constraint> constraints_;
  std::vector<std::vector<std::size_t>> constraint_dims_;
  std::vector<std::vector<std::size_t>> checks_at_;
};

/// A cheap, copyable handle on a space: what search policies hold. The space must outlive it.
class SpaceView {
 public:
  SpaceView() = default;
  SpaceView(const Space& space) : space_(&space) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] const Space& space() const noexcept { return *space_; }
  const Space* operator->() const noexcept { return space_; }
  const Space& operator*() const noexcept { return *space_; }

 private:
  const Space* space_ = nullptr;
};

}  // namespace aoe

#endif  // AOE_SPACE_SPACE_HPP
