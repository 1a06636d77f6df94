// Grid search: every valid configuration, in order (parameter 0 slowest).
#ifndef AOE_SEARCH_GRID_SEARCH_HPP
#define AOE_SEARCH_GRID_SEARCH_HPP

#include "aoe/core/concepts.hpp"
#include "aoe/core/trial.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace aoe {

/// Ordered, lazy enumeration of the valid configurations. Deterministic; ignores the seed and
/// the measurements. The baseline that brute-forced tuning spaces are made with.
class GridSearch {
 public:
  [[nodiscard]] static constexpr std::string_view name() noexcept { return "grid"; }

  void start(SpaceView view, std::uint64_t /*seed*/) { enumerator_.emplace(view.space()); }

  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    std::vector<Configuration> out;
    Configuration c;
    while (out.size() < n && enumerator_ && enumerator_->next(c)) out.push_back(c);
    return out;
  }

  void observe(std::span<const Trial> /*trials*/) {}

 private:
  std::optional<Space::Enumerator> enumerator_;
};

static_assert(search_policy<GridSearch>);

}  // namespace aoe

#endif  // AOE_SEARCH_GRID_SEARCH_HPP
