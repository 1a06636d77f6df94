// EXPECT: aoe::Tuner: the measure policy must be move-constructible
// A measure policy that has every member but cannot be moved is rejected with one message that
// names which policy is at fault.
#include "support/archetypes.hpp"
#include <aoe/tuner/tuner.hpp>

#include <optional>
#include <span>
#include <vector>

struct Pinned {
  Pinned() = default;
  Pinned(Pinned&&) = delete;
  std::vector<aoe::Measurement> measure(aoe::SpaceView, std::span<const aoe::Configuration>) {
    return {};
  }
};

// sizeof instantiates the class (its static_asserts), not its member functions.
#ifdef AOE_SHOULD_FAIL
static_assert(sizeof(aoe::Tuner<aoe::archetypes::SearchPolicy, Pinned>) > 0);
#else
static_assert(sizeof(aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy>) >
              0);
#endif

int main() {}
