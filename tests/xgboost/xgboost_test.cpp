// The learned cost model (search/xgboost/): the model learns a landscape, is reproducible,
// transfers from another problem's trials; the search it drives conforms to search_policy.
#include "search/search_policy_conformance.hpp"
#include "support/landscapes.hpp"
#include <aoe/search/by_name.hpp>
#include <aoe/search/xgboost/xgboost_model.hpp>
#include <aoe/search/xgboost/xgboost_search.hpp>
#include <aoe/tuner/tuner.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace {

struct LandscapeMeasure {
  const aoe::test::Landscape* l;
  std::vector<aoe::Measurement> measure(aoe::SpaceView v,
                                        std::span<const aoe::Configuration> batch) const {
    std::vector<aoe::Measurement> out;
    for (const auto& c : batch) out.push_back(l->evaluate(*v, c));
    return out;
  }
};

std::vector<aoe::Trial> trials_of(const aoe::test::Landscape& l, std::size_t n,
                                  std::uint64_t seed) {
  aoe::Rng rng(seed);
  std::vector<aoe::Trial> out;
  for (std::size_t i = 0; i < n; ++i) {
    aoe::Trial t;
    t.configuration = *l.space.sample(rng);
    t.measurement = l.evaluate(l.space, t.configuration);
    out.push_back(std::move(t));
  }
  return out;
}

// Spearman-like check: the fraction of pairs the model orders as the landscape does.
double pair_agreement(const aoe::test::Landscape& l, const aoe::XGBoostModel& m,
                      const std::vector<aoe::Trial>& test) {
  std::vector<aoe::Configuration> q;
  for (const auto& t : test) q.push_back(t.configuration);
  const auto p = m.predict(q);
  std::size_t agree = 0;
  std::size_t pairs = 0;
  for (std::size_t i = 0; i < test.size(); ++i) {
    for (std::size_t j = i + 1; j < test.size(); ++j) {
      const double a = aoe::detail::score(test[i]);
      const double b = aoe::detail::score(test[j]);
      if (a == b || !std::isfinite(a) || !std::isfinite(b)) continue;
      ++pairs;
      agree += (a < b) == (p[i].mean < p[j].mean) ? 1 : 0;
    }
  }
  (void)l;
  return static_cast<double>(agree) / static_cast<double>(pairs);
}

}  // namespace

TYPE_TO_STRING(aoe::XGBoostSearch);
TEST_CASE_TEMPLATE_INVOKE(search_policy_conformance, aoe::XGBoostSearch);

TEST_CASE("xgboost model: unfitted predicts nothing; fitted ranks a landscape it learned") {
  const auto l = aoe::test::bowl();
  aoe::XGBoostModel m;
  const std::vector<aoe::Configuration> q{{0, 0, 0}};
  CHECK(m.predict(q).front().mean == 0);
  m.fit(l.space, trials_of(l, 120, 1));
  CHECK(pair_agreement(l, m, trials_of(l, 60, 2)) > 0.8);
}

TEST_CASE("xgboost model: the same data gives the same predictions (one thread, fixed seed)") {
  const auto l = aoe::test::rugged();
  const auto train = trials_of(l, 100, 3);
  std::vector<aoe::Configuration> q;
  for (const auto& t : trials_of(l, 50, 4)) q.push_back(t.configuration);
  aoe::XGBoostModel a({.seed = 7});
  aoe::XGBoostModel b({.seed = 7});
  a.fit(l.space, train);
  b.fit(l.space, train);
  const auto pa = a.predict(q);
  const auto pb = b.predict(q);
  for (std::size_t i = 0; i < q.size(); ++i) CHECK(pa[i].mean == pb[i].mean);
}

TEST_CASE("xgboost model: trained only on another problem's trials, it ranks this one") {
  // Same landscape shape, another problem (context): the prior rows carry the ranking.
  const auto l = aoe::test::bowl();
  auto prior = std::make_shared<aoe::TransferData>();
  const auto other = trials_of(l, 150, 5);
  aoe::append_trials(*prior, std::vector<aoe::Feature>{{"op.type=X", 1}, {"op.size", 3}}, l.space,
                     other);
  aoe::XGBoostModel m({}, {{"op.type=X", 1}, {"op.size", 4}}, prior);
  m.fit(l.space, {});
  CHECK(pair_agreement(l, m, trials_of(l, 60, 6)) > 0.8);
}

TEST_CASE("xgboost search: finds the bowl's optimum within 100 evaluations; reproducible") {
  const auto l = aoe::test::bowl();
  std::vector<double> bests;
  std::vector<std::vector<aoe::Configuration>> runs;
  for (int rep = 0; rep < 2; ++rep) {
    aoe::Tuner<aoe::XGBoostSearch, LandscapeMeasure> tuner(
        aoe::XGBoostSearch{}, LandscapeMeasure{&l}, aoe::TunerOptions{.seed = 11, .batch_size = 8});
    const auto r = tuner.tune(l.space, aoe::MaxEvaluations{100});
    bests.push_back(r.best_value);
    std::vector<aoe::Configuration> order;
    for (const auto& t : r.history) order.push_back(t.configuration);
    runs.push_back(order);
  }
  CHECK(bests[0] == doctest::Approx(l.optimum));
  CHECK(runs[0] == runs[1]);
}

TEST_CASE("xgboost: make_search builds both policies by name") {
  for (const char* name : {"xgboost", "evolutionary-xgboost"}) {
    auto s = aoe::make_search(name);
    REQUIRE(s.has_value());
    CHECK(s->name() == name);  // the provenance of its results names it
  }
  const auto names = aoe::search_names();
  CHECK(std::find(names.begin(), names.end(), "xgboost") != names.end());
}
