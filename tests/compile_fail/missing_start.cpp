// EXPECT: the search policy needs a member .start
// A search policy without start() is rejected, and the message names start.
#include "support/archetypes.hpp"
#include <aoe/tuner/tuner.hpp>

struct NoStart {
  std::vector<aoe::Configuration> propose(std::size_t) { return {}; }
  void observe(std::span<const aoe::Trial>) {}
};

int main() {
#ifdef AOE_SHOULD_FAIL
  aoe::Tuner<NoStart, aoe::archetypes::MeasurePolicy> tuner;
#else
  aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy> tuner;
#endif
  (void)tuner;
}
