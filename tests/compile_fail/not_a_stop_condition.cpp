// EXPECT: satisfaction of 'stop_condition<|does not satisfy 'stop_condition'
// tune() takes only stop conditions: a plain number is rejected by the stop_condition concept.
#include "support/archetypes.hpp"
#include <aoe/tuner/tuner.hpp>

int main() {
  const aoe::Space space({aoe::range("x", 0, 3)});
  aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy> tuner;
#ifdef AOE_SHOULD_FAIL
  (void)tuner.tune(space, 100);
#else
  (void)tuner.tune(space, aoe::MaxEvaluations{100});
#endif
}
