#include "support/archetypes.hpp"
#include <aoe/measure/host_runner.hpp>
#include <aoe/search/grid_search.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/tuner/concepts.hpp>
#include <aoe/tuner/memory_repository.hpp>
#include <aoe/tuner/tuner.hpp>

#include <doctest/doctest.h>

namespace arch = aoe::archetypes;

// The concepts accept their archetypes, the minimum docs/concepts.md asks for...
static_assert(aoe::search_policy<arch::SearchPolicy>);
static_assert(aoe::measure_policy<arch::MeasurePolicy>);
static_assert(aoe::repository_policy<arch::RepositoryPolicy>);
static_assert(aoe::cost_model<arch::CostModel>);
static_assert(aoe::stop_condition<arch::StopCondition>);
static_assert(aoe::observer<arch::Observer>);

// ... and the library's own models.
static_assert(aoe::search_policy<aoe::GridSearch>);
static_assert(aoe::search_policy<aoe::RandomSearch>);
static_assert(aoe::measure_policy<aoe::Runner<aoe::device::Host>>);
static_assert(aoe::repository_policy<aoe::MemoryRepository>);
static_assert(aoe::stop_condition<aoe::MaxEvaluations>);
static_assert(aoe::stop_condition<decltype(aoe::MaxEvaluations{1} || aoe::NoImprovement{2})>);

// ... and reject what is not a model.
struct NotAPolicy {};
struct ObserverWithoutHooks {
  void on_strat() {}  // a typo is not a hook
};
static_assert(!aoe::search_policy<NotAPolicy>);
static_assert(!aoe::measure_policy<NotAPolicy>);
static_assert(!aoe::repository_policy<NotAPolicy>);
static_assert(!aoe::cost_model<NotAPolicy>);
static_assert(!aoe::stop_condition<NotAPolicy>);
static_assert(!aoe::observer<ObserverWithoutHooks>);
static_assert(!aoe::observer<int>);

TEST_CASE("a Tuner composed only of archetypes compiles and runs") {
  const aoe::Space space({aoe::range("x", 0, 3)});
  aoe::Tuner<arch::SearchPolicy, arch::MeasurePolicy, arch::RepositoryPolicy> tuner;
  arch::Observer observer;
  const auto result = tuner.tune(space, aoe::TuningKey{"p", "d"}, arch::StopCondition{}, observer);
  REQUIRE(result.found());
  CHECK(result.history.size() == 1);
  CHECK(result.stored == aoe::StoreOutcome::added);
  CHECK(result.policy == "custom");
}
