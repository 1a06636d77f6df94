#include "aoe/search/by_name.hpp"

#include "aoe/core/error.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/stop_conditions.hpp"
#include "aoe/tuner/tuner.hpp"
#include "support/landscapes.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

TEST_CASE("make_search builds every listed policy, named as asked") {
  const aoe::Space space({aoe::range("x", 0, 15), aoe::range("y", 0, 15)});
  REQUIRE(aoe::search_names().size() >= 2);
  for (const auto name : aoe::search_names()) {
    CAPTURE(name);
    auto made = aoe::make_search(name);
    REQUIRE(made.has_value());
    CHECK(made->name() == name);
    made->start(space, 7);
    const auto batch = made->propose(4);
    CHECK(batch.size() == 4);
    std::set<aoe::Configuration> unique(batch.begin(), batch.end());
    CHECK(unique.size() == batch.size());
    for (const auto& c : batch) CHECK(space.is_valid(c));
  }
}

TEST_CASE("make_search rejects an unknown name and lists the valid ones") {
  auto made = aoe::make_search("hill-climbing");
  REQUIRE(made.has_error());
  CHECK(made.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
  CHECK(made.error().message.find("hill-climbing") != std::string::npos);
  for (const auto name : aoe::search_names()) {
    CHECK(made.error().message.find(std::string(name)) != std::string::npos);
  }
}

TEST_CASE("make_search starts the policies that take initial configurations from them") {
  const aoe::Space space({aoe::range("x", 0, 15), aoe::range("y", 0, 15)});
  const aoe::Configuration given{3, 12};
  for (const auto name : {"annealing", "evolutionary", "bayesian", "ensemble"}) {
    CAPTURE(name);
    auto made = aoe::make_search(name, aoe::SearchStart{.initial = {given}});
    REQUIRE(made.has_value());
    made->start(space, 7);
    const auto batch = made->propose(1);
    REQUIRE(batch.size() == 1);
    CHECK(batch[0] == given);
  }
  // The baselines ignore them: grid starts at the centre, as without them.
  auto grid = aoe::make_search("grid", aoe::SearchStart{.initial = {given}});
  REQUIRE(grid.has_value());
  grid->start(space, 7);
  CHECK(grid->propose(1).front() == aoe::Configuration{8, 8});
}

TEST_CASE(
    "every policy on its defaults: a space smaller than its initial sample, one 80 % invalid") {
  // What a user gets by name (aoe --search, aoe-bench --strategy), not the lighter variants of
  // the conformance suite: each measures every point of a 6-point space once and ends
  // exhausted with its optimum; on 400 points of which 80 are valid and 40 measure, it
  // proposes only valid ones and finds the optimum within the 80 evaluations there are.
  for (const auto name : aoe::search_names()) {
    CAPTURE(name);
    for (const auto& l : {aoe::test::tiny(), aoe::test::mostly_invalid()}) {
      auto made = aoe::make_search(name);
      REQUIRE(made.has_value());
      aoe::Tuner tuner(std::move(*made), aoe::test::LandscapeRunner(l.evaluate),
                       aoe::MemoryRepository{}, aoe::TunerOptions{.seed = 3, .batch_size = 2});
      const auto r = tuner.tune(l.space, aoe::MaxEvaluations{l.valid + 20});
      CHECK(r.history.size() == l.valid);
      CHECK(r.reason == aoe::StopReason::exhausted);
      CHECK(r.count(aoe::Status::constraints) == 0);
      REQUIRE(r.found());
      CHECK(r.best_value == doctest::Approx(l.optimum));
    }
  }
}
