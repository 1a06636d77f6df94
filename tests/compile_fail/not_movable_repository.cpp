// EXPECT: aoe::Tuner: the repository must be move-constructible
// A repository that has every member but cannot be moved is rejected with one message that names
// which policy is at fault.
#include "support/archetypes.hpp"
#include <aoe/tuner/tuner.hpp>

#include <optional>
#include <span>
#include <vector>

struct Pinned {
  Pinned() = default;
  Pinned(Pinned&&) = delete;
  [[nodiscard]] aoe::Result<std::optional<aoe::Record>> lookup(const aoe::TuningKey&) const {
    return std::optional<aoe::Record>();
  }
  aoe::Result<aoe::StoreOutcome> store(const aoe::Record&) { return aoe::StoreOutcome::added; }
};

// sizeof instantiates the class (its static_asserts), not its member functions.
#ifdef AOE_SHOULD_FAIL
static_assert(
    sizeof(aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy, Pinned>) > 0);
#else
static_assert(sizeof(aoe::Tuner<aoe::archetypes::SearchPolicy, aoe::archetypes::MeasurePolicy,
                                aoe::archetypes::RepositoryPolicy>) > 0);
#endif

int main() {}
