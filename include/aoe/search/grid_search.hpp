// Grid search: every valid configuration, in lexicographic order (parameter 0 slowest) or in a
// space-filling order that spreads the first ones over the whole space.
#ifndef AOE_SEARCH_GRID_SEARCH_HPP
#define AOE_SEARCH_GRID_SEARCH_HPP

#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/trial.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace aoe {

/// The order in which GridSearch visits the grid.
enum class GridOrder : std::uint8_t {
  /// Parameter 0 slowest, as brute-force tuners (and the recorded spaces) enumerate: a run cut
  /// short by its budget has seen one corner of the space only.
  lexicographic,
  /// Coarse to fine: the centre of the space first, then the points of a low-discrepancy
  /// sequence over the unit-cube encoding (the additive recurrence x_i = frac(1/2 + i alpha)
  /// with alpha_d = phi^-(d+1), phi the generalised golden ratio, Roberts 2018), each new
  /// valid cell once; every prefix of the order is spread over every parameter's range. When
  /// the sequence stops finding new valid points, the rest follows in lexicographic order.
  spread,
};

struct GridSearchOptions {
  GridOrder order = GridOrder::lexicographic;
  /// `spread`: sequence points in a row that fall on invalid or already proposed
  /// configurations before the lexicographic rest begins.
  std::size_t max_misses = 10'000;
};

/// Every valid configuration exactly once, deterministically (the seed and the measurements are
/// ignored), lazily: the space is never materialised (`spread` remembers what it proposed). The
/// baseline that brute-forced tuning spaces are made with. `GridSearch{}` is lexicographic;
/// the tools' "grid" (`make_search`) is `spread`, since a budget there is usually far below
/// the size of the space.
class GridSearch {
 public:
  GridSearch() = default;
  explicit GridSearch(GridSearchOptions options) : options_(options) {}

  [[nodiscard]] static constexpr std::string_view name() noexcept { return "grid"; }

  void start(SpaceView view, std::uint64_t /*seed*/) {
    view_ = view;
    enumerator_.emplace(view.space());
    proposed_.clear();
    index_ = 0;
    misses_ = 0;
    sequence_ = options_.order == GridOrder::spread && view->dimensions() > 0;
    alpha_.assign(view->dimensions(), 0.0);
    if (sequence_) {
      // phi: the positive root of x^(D+1) = x + 1, by fixed-point iteration.
      const auto d = static_cast<double>(alpha_.size());
      double phi = 2;
      for (int i = 0; i < 64; ++i) phi = std::pow(1 + phi, 1 / (d + 1));
      for (std::size_t k = 0; k < alpha_.size(); ++k) {
        alpha_[k] = std::pow(1 / phi, static_cast<double>(k + 1));
      }
    }
  }

  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    std::vector<Configuration> out;
    Configuration c;
    while (out.size() < n && next(c)) out.push_back(c);
    return out;
  }

  void observe(std::span<const Trial> /*trials*/) {}

  [[nodiscard]] const GridSearchOptions& options() const noexcept { return options_; }

 private:
  bool next(Configuration& c) {
    std::vector<double> x(alpha_.size());
    while (sequence_) {
      const auto i = static_cast<double>(index_++);
      for (std::size_t d = 0; d < x.size(); ++d) {
        const double v = 0.5 + i * alpha_[d];
        x[d] = v - std::floor(v);
      }
      c = view_->decode(x);
      if (view_->is_valid(c) && proposed_.insert(c).second) {
        misses_ = 0;
        return true;
      }
      if (++misses_ >= options_.max_misses) sequence_ = false;
    }
    while (enumerator_ && enumerator_->next(c)) {
      if (!proposed_.contains(c)) return true;
    }
    return false;
  }

  GridSearchOptions options_;
  SpaceView view_;
  std::optional<Space::Enumerator> enumerator_;
  std::unordered_set<Configuration, ConfigurationHash> proposed_;
  std::vector<double> alpha_;
  std::uint64_t index_ = 0;
  std::size_t misses_ = 0;
  bool sequence_ = false;
};

static_assert(search_policy<GridSearch>);

}  // namespace aoe

#endif  // AOE_SEARCH_GRID_SEARCH_HPP
