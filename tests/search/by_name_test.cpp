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
#include <vector>

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
  // Bayesian search's default initial sample (5) is below 6 points: its spec with 10 keeps
  // the smaller-than-its-initial-sample case.
  std::vector<std::string> names(aoe::search_names().begin(), aoe::search_names().end());
  names.emplace_back("bayesian:initial_samples=10");
  for (const auto& name : names) {
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

TEST_CASE("a search spec sets the named options and nothing else") {
  auto spec = aoe::parse_search_spec("bayesian:initial_samples=5:local_every=3:feasibility=false");
  REQUIRE(spec.has_value());
  CHECK(spec->name == "bayesian");
  REQUIRE(spec->settings.size() == 3);
  auto o = aoe::detail::options_of(*spec, aoe::bayesian_settings);
  REQUIRE(o.has_value());
  CHECK(o->initial_samples == 5);
  CHECK(o->local_every == 3);
  CHECK_FALSE(o->feasibility);
  CHECK(o->candidates == aoe::BayesianOptions{}.candidates);
  auto a = aoe::detail::options_of(*aoe::parse_search_spec("annealing:long_jump=0.25"),
                                   aoe::annealing_settings);
  REQUIRE(a.has_value());
  CHECK(a->long_jump == doctest::Approx(0.25));
  CHECK(a->restart_after == aoe::SimulatedAnnealingOptions{}.restart_after);

  // Through make_search: the setting is in force (evolutionary stops after max_trials), and a
  // spec that repeats a default proposes exactly what the bare name does.
  const aoe::Space space({aoe::range("x", 0, 15), aoe::range("y", 0, 15)});
  auto capped = aoe::make_search("evolutionary:max_trials=5");
  REQUIRE(capped.has_value());
  CHECK(capped->name() == "evolutionary");
  capped->start(space, 7);
  CHECK(capped->propose(8).size() == 5);
  auto bare = aoe::make_search("bayesian");
  auto same = aoe::make_search("bayesian:initial_samples=5");
  REQUIRE(bare.has_value());
  REQUIRE(same.has_value());
  bare->start(space, 11);
  same->start(space, 11);
  CHECK(bare->propose(6) == same->propose(6));
}

TEST_CASE("a bad search spec is an error that names the policy, the key and the value") {
  const auto message = [](const char* text) {
    auto made = aoe::make_search(text);
    REQUIRE(made.has_error());
    CHECK(made.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
    return made.error().message;
  };
  const auto has = [](const std::string& text, const char* part) {
    CAPTURE(text);
    CHECK(text.find(part) != std::string::npos);
  };
  has(message("bayesian:"), "an empty setting");
  has(message(":initial_samples=3"), "expected a policy's name");
  has(message("bayesian:initial_samples"), "setting 'initial_samples': expected KEY=VALUE");
  has(message("bayesian:initial_samples=3:initial_samples=4"), "given twice");
  const auto unknown = message("bayesian:initial_sample=3");
  has(unknown, "setting 'initial_sample' is not one of its settings");
  has(unknown, "initial_samples (5)");
  has(unknown, "feasibility (true)");
  has(message("bayesian:initial_samples=many"), "'many': expected a whole number");
  has(message("bayesian:initial_samples=1"), "'1': expected at least 2");
  has(message("annealing:long_jump=1.5"), "'1.5': expected 0 to 1");
  has(message("annealing:restart_from_best=maybe"), "expected true or false");
  has(message("bayesian:refit_growth=nan"), "'nan': expected a finite number");
  has(message("annealing:long_jump=inf"), "'inf': expected a finite number");
  has(message("evolutionary:crossover_min=0.95"), "crossover_min is above crossover_max");
  has(message("evolutionary:population=4:elite=4"), "elite must be below population");
  has(message("bayesian:max_observations=700"), "max_active is below max_observations");
  has(message("grid:order=spread"), "search policy 'grid' takes no settings (given 'order')");
  has(message("hill-climbing:x=1"), "unknown search policy 'hill-climbing'");
}

TEST_CASE(
    "the jobs' evolutionary search keeps its own options, a spec's settings applied on them") {
  // make_job_search("evolutionary") is the genetic search on job_evolutionary_options(), not on
  // the protocol's defaults: its first generation is 20 configurations, not 10. A spec sets
  // fields on top of those options, and a bad one is the same error as make_search's.
  const aoe::Space space({aoe::range("x", 0, 15), aoe::range("y", 0, 15)});
  auto job = aoe::make_job_search("evolutionary");
  REQUIRE(job.has_value());
  CHECK(aoe::job_evolutionary_options().population == 20);
  CHECK(aoe::EvolutionaryOptions{}.population == 10);
  auto capped = aoe::make_job_search("evolutionary:max_trials=7");
  REQUIRE(capped.has_value());
  capped->start(space, 3);
  CHECK(capped->propose(30).size() == 7);
  auto same = aoe::make_search("evolutionary:population=20:tournament=3:step_mutation=0.7");
  REQUIRE(same.has_value());
  job->start(space, 5);
  same->start(space, 5);
  CHECK(job->propose(20) == same->propose(20));
  auto bad = aoe::make_job_search("evolutionary:elite=20");
  REQUIRE(bad.has_error());
  CHECK(bad.error().message.find("elite must be below population") != std::string::npos);
  auto other = aoe::make_job_search("bayesian:initial_samples=3");
  REQUIRE(other.has_value());
  CHECK(other->name() == "bayesian");
}
