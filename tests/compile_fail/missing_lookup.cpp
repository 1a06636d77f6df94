// EXPECT: the repository needs a member .aoe::Result<std::optional<aoe::Record>> lookup
// A repository without lookup() is rejected, and the message names lookup.
#include "support/archetypes.hpp"
#include <aoe/tuner/tuner.hpp>

struct WriteOnly {
  aoe::Result<aoe::StoreOutcome> store(const aoe::Record&) { return aoe::StoreOutcome::added; }
};

int main() {
#ifdef AOE_SHOULD_FAIL
  aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy, WriteOnly> tuner;
#else
  aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy,
             aoe::archetypes::RepositoryPolicy>
      tuner;
#endif
  (void)tuner;
}
