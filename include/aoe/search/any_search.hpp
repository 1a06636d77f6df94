// A type-erased search policy, so that tools can choose a policy at run time.
#ifndef AOE_SEARCH_ANY_SEARCH_HPP
#define AOE_SEARCH_ANY_SEARCH_HPP

#include "aoe/core/assert.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/tuner/transfer.hpp"
#include "aoe/vocab/objective.hpp"
#include "aoe/vocab/trial.hpp"

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace aoe {

namespace detail {
template <class S>
concept has_name = requires(const S& s) {
  { s.name() } -> std::convertible_to<std::string_view>;
};
}  // namespace detail

/// Holds any `search_policy` behind one type (move-only, like the policies it may hold), and is
/// itself a `search_policy`. `name()` is the held policy's `name()`, or "custom" when it has
/// none. A default-constructed (or moved-from) `AnySearch` holds nothing: calling it is a bug.
class AnySearch {
 public:
  AnySearch() = default;

  template <class S>
    requires(!std::same_as<std::remove_cvref_t<S>, AnySearch> &&
             search_policy<std::remove_cvref_t<S>>)
  AnySearch(S&& policy)  // NOLINT(google-explicit-constructor): a policy is an AnySearch
      : self_(std::make_unique<Model<std::remove_cvref_t<S>>>(std::forward<S>(policy))) {}

  AnySearch(AnySearch&&) noexcept = default;
  AnySearch& operator=(AnySearch&&) noexcept = default;

  /// Whether a policy is held.
  [[nodiscard]] explicit operator bool() const noexcept { return self_ != nullptr; }

  [[nodiscard]] std::string_view name() const {
    AOE_ASSERT(self_, "AnySearch::name on an empty AnySearch");
    return self_->name();
  }

  void start(SpaceView view, std::uint64_t seed) {
    AOE_ASSERT(self_, "AnySearch::start on an empty AnySearch");
    self_->start(view, seed);
  }

  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    AOE_ASSERT(self_, "AnySearch::propose on an empty AnySearch");
    return self_->propose(n);
  }

  void observe(std::span<const Trial> trials) {
    AOE_ASSERT(self_, "AnySearch::observe on an empty AnySearch");
    self_->observe(trials);
  }

  /// The held policy's `warm_start(seeds)` (aoe::takes_warm_start); false when it has none.
  bool warm_start(std::span<const Configuration> seeds) {
    AOE_ASSERT(self_, "AnySearch::warm_start on an empty AnySearch");
    return self_->warm_start(seeds);
  }
  /// The held policy's `multi_objective(objective)` (aoe::Tuner); false when it has none.
  bool multi_objective(const Objective& objective) {
    AOE_ASSERT(self_, "AnySearch::multi_objective on an empty AnySearch");
    return self_->multi_objective(objective);
  }

  /// The held policy if it is an S, else nullptr (for options and introspection).
  template <class S>
  [[nodiscard]] S* target() noexcept {
    auto* m = dynamic_cast<Model<S>*>(self_.get());
    return m ? &m->policy : nullptr;
  }

 private:
  struct Concept {
    virtual ~Concept() = default;
    [[nodiscard]] virtual std::string_view name() const = 0;
    virtual void start(SpaceView view, std::uint64_t seed) = 0;
    virtual std::vector<Configuration> propose(std::size_t n) = 0;
    virtual void observe(std::span<const Trial> trials) = 0;
    virtual bool multi_objective(const Objective& objective) = 0;
    virtual bool warm_start(std::span<const Configuration> seeds) = 0;
  };

  template <class S>
  struct Model final : Concept {
    template <class U>
    explicit Model(U&& p) : policy(std::forward<U>(p)) {
      if constexpr (detail::has_name<S>) name_ = std::string(policy.name());
    }
    [[nodiscard]] std::string_view name() const override { return name_; }
    void start(SpaceView view, std::uint64_t seed) override { policy.start(view, seed); }
    std::vector<Configuration> propose(std::size_t n) override { return policy.propose(n); }
    void observe(std::span<const Trial> trials) override { policy.observe(trials); }
    bool multi_objective(const Objective& objective) override {
      if constexpr (requires { policy.multi_objective(objective); }) {
        return static_cast<bool>(policy.multi_objective(objective));
      } else {
        return false;
      }
    }

    bool warm_start(std::span<const Configuration> seeds) override {
      if constexpr (takes_warm_start<S>) {
        return static_cast<bool>(policy.warm_start(seeds));
      } else {
        return false;
      }
    }
    S policy;
    std::string name_ = "custom";
  };

  std::unique_ptr<Concept> self_;
};

static_assert(search_policy<AnySearch>);

}  // namespace aoe

#endif  // AOE_SEARCH_ANY_SEARCH_HPP
