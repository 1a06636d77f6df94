// EXPECT: the measure policy needs a member .std::vector<aoe::Measurement> measure
// A measure policy that returns plain numbers is rejected, and the message names measure.
#include "support/archetypes.hpp"
#include <aoe/tuner/tuner.hpp>

struct ReturnsDoubles {
  std::vector<double> measure(aoe::SpaceView, std::span<const aoe::Configuration> b) {
    return std::vector<double>(b.size());
  }
};

int main() {
#ifdef AOE_SHOULD_FAIL
  aoe::Tuner<aoe::archetypes::SearchPolicy, ReturnsDoubles> tuner;
#else
  aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy> tuner;
#endif
  (void)tuner;
}
