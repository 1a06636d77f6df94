// Random search without replacement: the baseline every other policy is compared with.
#ifndef AOE_SEARCH_RANDOM_SEARCH_HPP
#define AOE_SEARCH_RANDOM_SEARCH_HPP

#include "aoe/core/random.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/trial.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace aoe {

struct RandomSearchOptions {
  /// Spaces of at most this many raw points have their valid points listed once (as 8-byte
  /// ranks) and are drawn from exactly uniformly without replacement; larger ones are sampled
  /// lazily.
  double materialise_raw = 4'194'304;
  /// Lazy sampling: draws in a row that hit only known configurations before the space is
  /// taken as exhausted.
  std::size_t max_duplicate_draws = 4096;
};

/// Uniform random valid configurations, each at most once, seeded. On small spaces it is
/// exactly uniform sampling without replacement (a lazy Fisher-Yates shuffle of the valid
/// points); on huge ones it draws through `Space::sample` and skips repeats.
class RandomSearch {
 public:
  explicit RandomSearch(RandomSearchOptions options = {}) : options_(options) {}

  [[nodiscard]] static constexpr std::string_view name() noexcept { return "random"; }

  void start(SpaceView view, std::uint64_t seed) {
    view_ = view;
    rng_.reseed(seed);
    pool_.clear();
    drawn_ = 0;
    seen_.clear();
    materialised_ = view->raw_size() <= options_.materialise_raw;
    if (materialised_) {
      view->for_each_valid([this](const Configuration& c) { pool_.push_back(view_->rank(c)); });
    }
  }

  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    std::vector<Configuration> out;
    if (materialised_) {
      while (out.size() < n && drawn_ < pool_.size()) {
        const std::size_t pick = drawn_ + rng_.below(pool_.size() - drawn_);
        std::swap(pool_[drawn_], pool_[pick]);
        out.push_back(view_->unrank(pool_[drawn_++]));
      }
      return out;
    }
    std::size_t duplicates = 0;
    while (out.size() < n && duplicates < options_.max_duplicate_draws) {
      auto c = view_->sample(rng_);
      if (!c) break;
      if (seen_.insert(*c).second) {
        out.push_back(std::move(*c));
        duplicates = 0;
      } else {
        ++duplicates;
      }
    }
    return out;
  }

  void observe(std::span<const Trial> /*trials*/) {}

 private:
  RandomSearchOptions options_;
  SpaceView view_;
  Rng rng_;
  bool materialised_ = false;
  std::vector<std::uint64_t> pool_;  // ranks of the valid points: 8 bytes each
  std::size_t drawn_ = 0;
  std::unordered_set<Configuration, ConfigurationHash> seen_;
};

static_assert(search_policy<RandomSearch>);

}  // namespace aoe

#endif  // AOE_SEARCH_RANDOM_SEARCH_HPP
