// EXPECT: aoe::Tuner: the search policy must be move-constructible
// A search policy that has every member but cannot be moved is rejected with one message that names
// which policy is at fault.
#include "support/archetypes.hpp"
#include <aoe/tuner/tuner.hpp>

#include <optional>
#include <span>
#include <vector>

struct Pinned {
  Pinned() = default;
  Pinned(Pinned&&) = delete;
  void start(aoe::SpaceView, std::uint64_t) {}
  std::vector<aoe::Configuration> propose(std::size_t) { return {}; }
  void observe(std::span<const aoe::Trial>) {}
};

// sizeof instantiates the class (its static_asserts), not its member functions.
#ifdef AOE_SHOULD_FAIL
static_assert(sizeof(aoe::Tuner<Pinned, aoe::archetypes::MeasurePolicy>) > 0);
#else
static_assert(sizeof(aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy>) >
              0);
#endif

int main() {}
