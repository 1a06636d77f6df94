// EXPECT: the repository needs a member .aoe::Result<aoe::StoreOutcome> store
// A repository without store() is rejected, and the message names store.
#include "support/archetypes.hpp"
#include <aoe/tuner/tuner.hpp>

struct ReadOnly {
  aoe::Result<std::optional<aoe::Record>> lookup(const aoe::TuningKey&) const {
    return std::optional<aoe::Record>();
  }
};

int main() {
#ifdef AOE_SHOULD_FAIL
  aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy, ReadOnly> tuner;
#else
  aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy,
             aoe::archetypes::RepositoryPolicy>
      tuner;
#endif
  (void)tuner;
}
