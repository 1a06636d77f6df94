// A search in phases: one policy for its first evaluations, then the next, which starts from
// every trial the earlier ones measured (docs/search.md#phases). A local walk finds a good
// region within a few dozen evaluations and then stalls; a genetic search recombines what is
// known and keeps improving over hundreds. Run one after the other, the second begins where
// the first stopped instead of from scratch.
#ifndef AOE_SEARCH_PHASES_HPP
#define AOE_SEARCH_PHASES_HPP

#include "aoe/core/random.hpp"
#include "aoe/search/any_search.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/vocab/trial.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// One phase: a policy and the evaluations it proposes at most (the last phase's is ignored:
/// it runs until the run stops or it has nothing left to propose).
struct Phase {
  AnySearch search;
  std::size_t evaluations = std::numeric_limits<std::size_t>::max();
};

/// See the file comment. Phase k+1 starts when phase k has proposed its evaluations, or when it
/// proposes nothing (stopped, or its space exhausted). It is started with a seed derived from the
/// run's and is then told every trial observed so far (`observe`; a trial of phase k observed later
/// goes to phase k+1), which every policy here takes as known: it never proposes them again, and an
/// evolutionary search forms its first generation from the best of them. Deterministic for a seed.
class Phases {
 public:
  explicit Phases(std::vector<Phase> phases, std::string name = "phases")
      : phases_(std::move(phases)), name_(std::move(name)) {}

  Phases(Phases&&) noexcept = default;
  Phases& operator=(Phases&&) noexcept = default;

  [[nodiscard]] std::string_view name() const noexcept { return name_; }

  /// The phase in use (0-based).
  [[nodiscard]] std::size_t phase() const noexcept { return current_; }

  /// Transfer's seeds (aoe::takes_warm_start) go to the first phase: whether it takes them.
  bool warm_start(std::span<const Configuration> seeds) {
    return !phases_.empty() && phases_[0].search.warm_start(seeds);
  }

  void start(SpaceView view, std::uint64_t seed) {
    view_ = view;
    seed_ = seed;
    current_ = 0;
    proposed_ = 0;
    history_.clear();
    if (!phases_.empty()) phases_[0].search.start(view, seed);
  }

  /// At most `n` configurations, all from one phase: a batch never mixes two, so the next
  /// phase starts only after the previous one's proposals were observed (a phase that reaches
  /// its quota or gives fewer than asked returns what it gave; the next call moves on).
  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    while (current_ < phases_.size()) {
      const bool last = current_ + 1 == phases_.size();
      const std::size_t quota = phases_[current_].evaluations;
      if (!last && proposed_ >= quota) {
        next_phase();
        continue;
      }
      auto batch = phases_[current_].search.propose(last ? n : std::min(n, quota - proposed_));
      if (batch.empty() && !last) {
        next_phase();
        continue;
      }
      proposed_ += batch.size();
      return batch;
    }
    return {};
  }

  void observe(std::span<const Trial> trials) {
    if (current_ < phases_.size()) phases_[current_].search.observe(trials);
    history_.insert(history_.end(), trials.begin(), trials.end());
  }

 private:
  void next_phase() {
    ++current_;
    proposed_ = 0;
    if (current_ >= phases_.size()) return;
    phases_[current_].search.start(view_, derive_seed(seed_, current_));
    if (!history_.empty()) phases_[current_].search.observe(history_);
  }

  std::vector<Phase> phases_;
  std::string name_;
  SpaceView view_;
  std::uint64_t seed_ = 0;
  std::size_t current_ = 0;
  std::size_t proposed_ = 0;  // by the current phase
  std::vector<Trial> history_;
};

}  // namespace aoe

#endif  // AOE_SEARCH_PHASES_HPP
