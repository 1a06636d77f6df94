// EXPECT: the search policy needs a member .std::vector<aoe::Configuration> propose
// A search policy without propose() is rejected, and the message names propose.
#include "support/archetypes.hpp"
#include <aoe/tuner/tuner.hpp>

struct NoPropose {
  void start(aoe::SpaceView, std::uint64_t) {}
  void observe(std::span<const aoe::Trial>) {}
};

int main() {
#ifdef AOE_SHOULD_FAIL
  aoe::Tuner<NoPropose, aoe::archetypes::MeasurePolicy> tuner;
#else
  aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy> tuner;
#endif
  (void)tuner;
}
