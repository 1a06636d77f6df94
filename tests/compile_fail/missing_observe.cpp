// EXPECT: the search policy needs a member .observe
// A search policy without observe() is rejected, and the message names observe.
#include "support/archetypes.hpp"
#include <aoe/tuner/tuner.hpp>

struct NoObserve {
  void start(aoe::SpaceView, std::uint64_t) {}
  std::vector<aoe::Configuration> propose(std::size_t) { return {}; }
};

int main() {
#ifdef AOE_SHOULD_FAIL
  aoe::Tuner<NoObserve, aoe::archetypes::MeasurePolicy> tuner;
#else
  aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy> tuner;
#endif
  (void)tuner;
}
