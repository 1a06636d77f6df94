#include "search/search_policy_conformance.hpp"
#include "search/search_quality.hpp"
#include <aoe/search/evolutionary.hpp>
#include <aoe/search/random_search.hpp>

#include <doctest/doctest.h>

#include <unordered_set>

TYPE_TO_STRING(aoe::Evolutionary<>);
TEST_CASE_TEMPLATE_INVOKE(search_policy_conformance, aoe::Evolutionary<>);

namespace {

// A cost model that knows the landscape exactly: pre-screening with it must help.
struct OracleModel {
  aoe::test::Landscape landscape = aoe::test::tiled_kernel();
  std::size_t fits = 0;
  void fit(aoe::SpaceView, std::span<const aoe::Trial>) { ++fits; }
  std::vector<aoe::Prediction> predict(std::span<const aoe::Configuration> q) const {
    std::vector<aoe::Prediction> out;
    for (const auto& c : q) {
      const auto m = landscape.evaluate(landscape.space, c);
      out.push_back({m.ok() ? m.value : 1e9, 0});
    }
    return out;
  }
};
static_assert(aoe::cost_model<OracleModel>);

}  // namespace

TEST_CASE("the AOE preset has AOE's settings") {
  const auto o = aoe::EvolutionaryOptions::aoe_preset();
  CHECK(o.population == 50);
  CHECK(o.max_trials == 500);
  CHECK(o.crossover_min == 0.6);
  CHECK(o.crossover_max == 0.9);
  CHECK(o.mutation_min == 0.01);
  CHECK(o.mutation_max == 0.1);
  CHECK(o.elite == 2);
  CHECK(o.early_stop_generations == 3);
  CHECK(o.early_stop_tolerance == 0.03);
}

TEST_CASE("the AOE preset stops at 500 trials or early, and then proposes nothing") {
  using namespace aoe;
  // A flat landscape: the elite cannot improve, so the early stop must fire.
  const Space space({range("a", 0, 99), range("b", 0, 99)});
  Evolutionary<> ga(EvolutionaryOptions::aoe_preset());
  ga.start(space, 9);
  std::size_t total = 0;
  for (int round = 0; round < 100; ++round) {
    const auto batch = ga.propose(10);
    if (batch.empty()) break;
    total += batch.size();
    std::vector<Trial> trials;
    for (const auto& c : batch) trials.push_back({c, Measurement::success(1.0)});
    ga.observe(trials);
  }
  CHECK(ga.stopped());
  CHECK(total <= 500);
  CHECK(total >= 50 * 3);
  CHECK(ga.propose(5).empty());

  // Without the early stop, the trial limit holds.
  auto options = EvolutionaryOptions::aoe_preset();
  options.early_stop_generations = 0;
  Evolutionary<> capped(options);
  capped.start(space, 9);
  std::size_t proposed = 0;
  while (true) {
    const auto batch = capped.propose(64);
    if (batch.empty()) break;
    proposed += batch.size();
    std::vector<Trial> trials;
    for (const auto& c : batch) {
      trials.push_back({c, Measurement::success(1.0 + space.numeric(c, 0))});
    }
    capped.observe(trials);
  }
  CHECK(proposed == 500);
}

TEST_CASE("evolutionary search never proposes a failing region twice and handles failures") {
  using namespace aoe;
  const auto l = test::bowl();
  Evolutionary<> ga;
  ga.start(l.space, 4);
  std::unordered_set<Configuration, ConfigurationHash> seen;
  for (int round = 0; round < 30; ++round) {
    const auto batch = ga.propose(8);
    std::vector<Trial> trials;
    for (const auto& c : batch) {
      CHECK(seen.insert(c).second);
      trials.push_back({c, l.evaluate(l.space, c)});
    }
    ga.observe(trials);
  }
  CHECK(seen.size() == 240);
}

TEST_CASE("evolutionary search beats random search on a kernel-like landscape") {
  using namespace aoe;
  const auto l = test::tiled_kernel();
  const auto ga = test::fractions_of_optimum(
      l, [] { return Evolutionary<>{}; }, 100, 30);
  const auto rs = test::fractions_of_optimum(
      l, [] { return RandomSearch{}; }, 100, 30);
  MESSAGE("evolutionary mean ", test::mean(ga), " random mean ", test::mean(rs));
  CHECK(test::mean(ga) > test::mean(rs));
}

TEST_CASE("pre-screening with a cost model proposes the model's best offspring") {
  using namespace aoe;
  const auto l = test::tiled_kernel();
  const auto plain = test::fractions_of_optimum(
      l, [] { return Evolutionary<>{}; }, 60, 20);
  const auto screened = test::fractions_of_optimum(
      l, [] { return Evolutionary<OracleModel>(EvolutionaryOptions{.screening = 4}); }, 60, 20);
  MESSAGE("plain mean ", test::mean(plain), " screened mean ", test::mean(screened));
  CHECK(test::mean(screened) > test::mean(plain));
}

TEST_CASE("the first generation starts with the initial configurations") {
  using namespace aoe;
  const auto l = test::bowl();
  const auto good = *l.space.find(std::vector<NamedValue>{{"x", 10}, {"y", 4}, {"z", 4}});
  Evolutionary<> ga(EvolutionaryOptions{.population = 8, .initial = {good}});
  ga.start(l.space, 4);
  const auto first = ga.propose(8);
  REQUIRE(first.size() == 8);
  CHECK(first[0] == good);
  const std::unordered_set<Configuration, ConfigurationHash> unique(first.begin(), first.end());
  CHECK(unique.size() == 8);
}
