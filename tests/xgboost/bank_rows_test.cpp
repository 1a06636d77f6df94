// The bank's records as training rows of the learned cost model (jobs/detail/transfer.hpp,
// docs/search.md#the-learned-cost-model-aoexgboost): features read back from a record's key
// text, rows only from the bank as it stood when the job started, and a model that learns
// from them.
#include "support/temp_dir.hpp"
#include <aoe/jobs/detail/transfer.hpp>
#include <aoe/repo/knowledge_bank.hpp>
#include <aoe/search/xgboost/xgboost_model.hpp>
#include <aoe/search/xgboost/xgboost_search.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace {

aoe::OperatorDesc matmul(std::int64_t m, std::int64_t n) {
  aoe::OperatorDesc op;
  op.type = "MatMul+BiasAdd";
  op.name = "mm";
  op.inputs = {{{m, 128}, aoe::DataType::float16, aoe::Format::ND},
               {{128, n}, aoe::DataType::float16, aoe::Format::FRACTAL_NZ},
               {{n}, aoe::DataType::float32, aoe::Format::ND}};
  op.outputs = {{{m, n}, aoe::DataType::float16, aoe::Format::ND}};
  op.attributes["transpose_b"] = true;
  return op;
}

aoe::Trial trial(aoe::Configuration c, double value) {
  aoe::Trial t;
  t.configuration = std::move(c);
  t.measurement.value = value;
  return t;
}

}  // namespace

TEST_CASE("transfer: a record's key text gives back its operator's features exactly") {
  const aoe::BankScope scope{"Ascend310P3", 8};
  for (const auto& op : {matmul(64, 512), matmul(1, 30522)}) {
    const auto direct = aoe::detail::operator_features(op, aoe::KnowledgeKind::format, scope);
    const auto read = aoe::detail::operator_features_from_key(
        aoe::operator_key_text(op, "high_performance"), aoe::KnowledgeKind::format, scope);
    REQUIRE(read.size() == direct.size());
    for (std::size_t i = 0; i < direct.size(); ++i) {
      CHECK(read[i].name == direct[i].name);
      CHECK(read[i].value == doctest::Approx(direct[i].value));
    }
  }
  CHECK(aoe::detail::operator_features_from_key("not a key", aoe::KnowledgeKind::schedule, scope)
            .empty());
}

TEST_CASE("transfer: a named configuration's features are the space's configuration features") {
  const aoe::Space space({aoe::pow2("tile", 1, 64), aoe::range("split", 0, 3),
                          aoe::enumeration("order", {"mn", "nm"})});
  const aoe::Configuration c{5, 0, 1};
  const auto direct = aoe::configuration_features(space, c);
  const auto named = aoe::detail::named_value_features(space, space.named_values(c));
  REQUIRE(named.size() == direct.size());
  for (std::size_t i = 0; i < direct.size(); ++i) {
    CHECK(named[i].name == direct[i].name);
    CHECK(named[i].value == doctest::Approx(direct[i].value));
  }
  // A text value the space does not know is missing, not a wrong index.
  const std::vector<aoe::NamedValue> unknown{{"order", aoe::Value(std::string("km"))}};
  CHECK(aoe::detail::named_value_features(space, unknown).empty());
}

TEST_CASE("transfer: the prior holds the job's rows and the bank's records as at the start") {
  aoe::test::TempDir dir("bank_rows");
  aoe::KnowledgeBank bank({.custom_root = dir.path() / "bank"});
  const aoe::BankScope scope{"Ascend910A", 32};
  const aoe::BankScope other{"Ascend310P3", 8};
  const aoe::Space space({aoe::pow2("tile", 1, 64), aoe::range("split", 0, 3)});
  const auto store = [&](const aoe::OperatorDesc& op, aoe::KnowledgeKind kind,
                         const aoe::BankScope& s, std::int64_t tile) {
    const aoe::Record r{aoe::make_bank_key(op, kind, s),
                        {{"tile", tile}, {"split", 1}},
                        1e-5,
                        {"annealing", 10, "2026-11-24T00:00:00Z"}};
    REQUIRE(bank.store(r).has_value());
  };
  store(matmul(64, 512), aoe::KnowledgeKind::schedule, scope, 32);
  store(matmul(64, 1024), aoe::KnowledgeKind::schedule, other, 32);
  store(matmul(64, 2048), aoe::KnowledgeKind::format, scope, 4);
  const std::vector<aoe::KnowledgeKind> kinds{aoe::KnowledgeKind::schedule,
                                              aoe::KnowledgeKind::format};
  auto hints = aoe::detail::TransferHints::from_bank(bank, scope, kinds);
  REQUIRE(hints.has_value());
  // Stored after the job started: neither a row nor a hint of this job.
  store(matmul(64, 4096), aoe::KnowledgeKind::schedule, scope, 2);
  // A winner of this job: a hint, but its trials are the job's rows, not a bank row.
  hints->add(aoe::KnowledgeKind::schedule,
             aoe::operator_key_text(matmul(64, 8192), "high_performance"),
             {{"tile", 8}, {"split", 0}}, true);

  CHECK(hints->prior(nullptr, aoe::KnowledgeKind::impl, space) == nullptr);
  auto job = std::make_shared<aoe::TransferData>();
  CHECK(hints->prior(job, aoe::KnowledgeKind::impl, space) == nullptr);
  aoe::append_trials(
      *job, aoe::detail::operator_features(matmul(32, 32), aoe::KnowledgeKind::impl, scope), space,
      std::vector<aoe::Trial>{trial({0, 0}, 2.0), trial({1, 0}, 1.0)});
  CHECK(hints->prior(job, aoe::KnowledgeKind::impl, space) == job);  // no bank row: shared

  const auto prior = hints->prior(job, aoe::KnowledgeKind::schedule, space);
  REQUIRE(prior);
  REQUIRE(prior->rows.size() == 4);  // the job's 2, then this SoC's record, then the other's
  CHECK(prior->winner_rows == 2);
  CHECK(prior->rows[0].target == doctest::Approx(job->rows[0].target));
  const auto has = [](const aoe::TransferData::Row& row, const std::string& name, double value) {
    return std::any_of(row.features.begin(), row.features.end(), [&](const aoe::Feature& f) {
      return f.name == name && f.value == doctest::Approx(value);
    });
  };
  for (std::size_t i = 2; i < 4; ++i) {
    CHECK(prior->rows[i].target == doctest::Approx(aoe::detail::TransferHints::bank_winner_target));
    CHECK(has(prior->rows[i], "p.tile", 5));  // log2 32
    CHECK(has(prior->rows[i], "op.kind=Schedule", 1));
  }
  CHECK(has(prior->rows[2], "soc=Ascend910A", 1));
  CHECK(has(prior->rows[2], "op.in1.d1", std::log2(513.0)));
  CHECK(has(prior->rows[3], "soc=Ascend310P3", 1));
  CHECK(has(prior->rows[3], "soc.cores", 8));

  const auto format = hints->prior(nullptr, aoe::KnowledgeKind::format, space);
  REQUIRE(format);
  REQUIRE(format->rows.size() == 1);
  CHECK(has(format->rows[0], "p.tile", 2));
}

TEST_CASE("transfer: a model trained with the bank's winners ranks their region first") {
  aoe::test::TempDir dir("bank_rows_model");
  aoe::KnowledgeBank bank({.custom_root = dir.path() / "bank"});
  const aoe::BankScope scope{"Ascend910A", 32};
  const aoe::Space space({aoe::pow2("tile", 1, 64), aoe::range("split", 0, 3)});
  for (const std::int64_t n : {256, 512, 1024, 2048}) {
    const aoe::Record r{aoe::make_bank_key(matmul(64, n), aoe::KnowledgeKind::schedule, scope),
                        {{"tile", 32}, {"split", 2}},
                        1e-5,
                        {"annealing", 10, "2026-11-24T00:00:00Z"}};
    REQUIRE(bank.store(r).has_value());
  }
  const std::vector<aoe::KnowledgeKind> kinds{aoe::KnowledgeKind::schedule};
  auto hints = aoe::detail::TransferHints::from_bank(bank, scope, kinds);
  REQUIRE(hints.has_value());
  const auto op = matmul(64, 768);
  const auto context = aoe::detail::operator_features(op, aoe::KnowledgeKind::schedule, scope);
  // The operator's own first trials: tile 1 slow, tile 4 faster.
  const std::vector<aoe::Trial> history{trial({0, 0}, 2.0), trial({2, 0}, 1.0)};
  const std::vector<aoe::Configuration> queries{{5, 2}, {2, 0}, {0, 0}};

  aoe::XGBoostModel with_bank({}, context,
                              hints->prior(nullptr, aoe::KnowledgeKind::schedule, space));
  with_bank.fit(space, history);
  const auto p = with_bank.predict(queries);
  CHECK(p[0].mean < p[1].mean - 0.1);  // the bank's winner before the best measured
  CHECK(p[1].mean < p[2].mean);

  // Without the bank's rows nothing says tile 32 beats tile 4.
  aoe::XGBoostModel alone({}, context, nullptr);
  alone.fit(space, history);
  const auto q = alone.predict(queries);
  CHECK(q[0].mean >= q[1].mean - 1e-6);
}

TEST_CASE("transfer: winner rows alone do not shorten the learned search's initial design") {
  const aoe::Space space(
      {aoe::pow2("tile", 1, 64), aoe::range("split", 0, 3), aoe::range("depth", 0, 7)});
  auto winners = std::make_shared<aoe::TransferData>();
  for (int i = 0; i < 3; ++i) {
    winners->rows.push_back({{{"p.tile", 5.0}, {"p.split", 2.0}}, -0.7});
  }
  winners->winner_rows = winners->rows.size();
  const auto first = [&](std::shared_ptr<const aoe::TransferData> prior) {
    aoe::XGBoostSearch s(aoe::XGBoostSearchOptions{.prior = std::move(prior)});
    s.start(space, 11);
    return s.propose(8);  // the initial design, then (if shorter) the model's proposals
  };
  // Winners alone: the same 8-point design as without any prior.
  CHECK(first(winners) == first(nullptr));
  // Earlier trials: a 2-point design, then the model proposes.
  auto trials = std::make_shared<aoe::TransferData>(*winners);
  trials->rows.push_back({{{"p.tile", 1.0}, {"p.split", 0.0}}, 0.3});
  CHECK(first(trials) != first(nullptr));
}
