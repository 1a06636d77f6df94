// The GDAT job: on ResNet-50 and BERT-base at 8 and 64 devices the tuned split is never worse
// than AOE's default and within 1% of the dynamic programme's optimum; the gradient-fusion bank
// (add, hit, REPEAT_TUNE update / reserved, other writers' entries kept, corrupt files left
// alone); the result file; bad options; interruption.
#include "support/temp_dir.hpp"
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/gdat/backward_derivation.hpp>
#include <aoe/jobs/gdat/gdat_job.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace jobs_gdat_job_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;
using aoe::gdat::Cluster;
using aoe::gdat::GradientProfile;

namespace {

GradientProfile model_profile(const std::string& name) {
  const auto g =
      aoe::load_graph(std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/" + name + ".json");
  REQUIRE(g.has_value());
  const auto soc = aoe::sim::Soc::builtin("Ascend910A");
  REQUIRE(soc.has_value());
  auto p = aoe::gdat::derive_gradient_profile(*g, *soc);
  REQUIRE(p.has_value());
  return *p;
}

// 24 equal layers of 4 MB and a first layer of 100 kB (last in backward), 0.5 ms of backward
// each: communication worth hiding, and a default split of two segments ([0, 23] [24, 24]).
GradientProfile layers_profile() {
  GradientProfile p;
  p.name = "layers";
  p.forward_seconds = 5e-3;
  for (int i = 0; i < 24; ++i) p.gradients.push_back({"w" + std::to_string(i), 0.5e-3, 4'000'000});
  p.gradients.push_back({"first", 0.5e-3, 100'000});
  return p;
}

std::string read(const fs::path& f) {
  std::ifstream in(f);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

boost::json::object gdat_part(const fs::path& result_file) {
  const auto v = boost::json::parse(read(result_file));
  const auto& root = v.as_object();
  REQUIRE(root.size() == 1);
  const auto& entries = root.begin()->value().as_array();
  CHECK(root.begin()->key().starts_with("report_"));
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].as_object().contains("basic"));
  return entries[1].as_object().at("GDAT").as_object();
}

struct Fixture {
  aoe::test::TempDir dir{"gdat_job"};
  aoe::gdat::GradientFusionBank bank{dir.path() / "bank", "Ascend910A"};
  aoe::GdatOptions options() const { return {.run = {.result_dir = dir.path() / "work"}}; }
};

}  // namespace

TEST_CASE("gdat job: never worse than the default split, within 1% of the optimum") {
  for (const std::string name : {"resnet50", "bert_base"}) {
    const GradientProfile profile = model_profile(name);
    for (const int devices : {8, 64}) {
      CAPTURE(name);
      CAPTURE(devices);
      aoe::test::TempDir dir("gdat_quality");
      aoe::gdat::GradientFusionBank bank(dir.path() / "bank", "Ascend910A");
      const auto r = aoe::run_gdat(profile, Cluster{.devices = devices}, bank,
                                   {.run = {.result_dir = dir.path()}});
      REQUIRE(r.has_value());
      const auto& rep = r->report;
      REQUIRE(rep.result.has_value());
      REQUIRE(rep.search_best.has_value());
      CHECK(rep.result->seconds <= rep.baseline.seconds);
      CHECK(rep.result->seconds <= 1.01 * rep.optimum.seconds);
      // The search earned it: the optimum is not among the candidates by default.
      CHECK(rep.strategy_source != "exact");
      CHECK(rep.search_best->seconds <= 1.01 * rep.optimum.seconds);
      CHECK(rep.optimum.seconds <= rep.result->seconds * (1 + 1e-12));
      CHECK(rep.result->split.valid_for(profile.gradients.size()));
      CHECK(rep.evaluations > 0);
      CHECK(rep.evaluations <= aoe::GdatOptions{}.budget.evaluations + 64);
    }
  }
}

TEST_CASE("gdat job: the bank is added to, then hit; REPEAT_TUNE re-tunes") {
  Fixture f;
  const GradientProfile p = layers_profile();
  const Cluster c{.devices = 16};
  const auto first = aoe::run_gdat(p, c, f.bank, f.options());
  REQUIRE(first.has_value());
  CHECK(first->report.outcome == aoe::GdatOutcome::add);
  CHECK(first->report.result->seconds < first->report.baseline.seconds);
  const auto stored = f.bank.records();
  REQUIRE(stored.has_value());
  REQUIRE(stored->size() == 1);
  CHECK((*stored)[0].split == first->report.result->split);
  CHECK((*stored)[0].model_hash == p.hash());
  CHECK((*stored)[0].gradient_size.size() == 25);
  // Where the stored iteration time came from: GDAT's iteration model, read back from the file.
  REQUIRE((*stored)[0].provenance.timing.has_value());
  CHECK((*stored)[0].provenance.timing->kind == aoe::TimingKind::simulated);
  CHECK((*stored)[0].provenance.timing->source == aoe::gdat_timing().source);

  const auto second = aoe::run_gdat(p, c, f.bank, f.options());
  REQUIRE(second.has_value());
  CHECK(second->report.outcome == aoe::GdatOutcome::hit);
  CHECK(second->report.strategy_source == "bank");
  CHECK(second->report.evaluations == 0);
  CHECK(second->report.result->split == first->report.result->split);
  CHECK(second->report.result->seconds == doctest::Approx(first->report.result->seconds));

  // Another cluster is another key.
  const auto other = aoe::run_gdat(p, Cluster{.devices = 32}, f.bank, f.options());
  REQUIRE(other.has_value());
  CHECK(other->report.outcome == aoe::GdatOutcome::add);
  CHECK(f.bank.records()->size() == 2);

  // REPEAT_TUNE with the same search finds the same split: not better, the bank's kept.
  auto repeat = f.options();
  repeat.repeat_tune = true;
  const auto third = aoe::run_gdat(p, c, f.bank, repeat);
  REQUIRE(third.has_value());
  CHECK(third->report.outcome == aoe::GdatOutcome::reserved);
  CHECK(third->report.evaluations > 0);

  // A worse stored split is replaced.
  aoe::gdat::GradientFusionRecord worse = (*stored)[0];
  worse.split = aoe::gdat::default_split(p);
  worse.iteration_seconds = first->report.baseline.seconds;
  REQUIRE(f.bank.store(worse, true).has_value());
  const auto fourth = aoe::run_gdat(p, c, f.bank, repeat);
  REQUIRE(fourth.has_value());
  CHECK(fourth->report.outcome == aoe::GdatOutcome::update);
  const auto result = gdat_part(fourth->result_file);
  CHECK(result.at("update_mode").as_string() == "update");
  CHECK(result.at("repo_summary").as_object().at("repo_update_num").as_int64() == 1);
}

TEST_CASE("gdat job: the bank file keeps AOE's format and other writers' entries") {
  Fixture f;
  const auto file = f.bank.file();
  CHECK(file == f.dir.path() / "bank" / "Ascend910A_gradient_fusion.json");
  fs::create_directories(file.parent_path());
  std::ofstream(file)
      << R"([{"modelhash": "42", "modelvalue": {"gradientTime": [1.5], "gradientSize": [8]}}])";
  const GradientProfile p = layers_profile();
  const auto r = aoe::run_gdat(p, Cluster{.devices = 16}, f.bank, f.options());
  REQUIRE(r.has_value());
  const auto v = boost::json::parse(read(file));
  REQUIRE(v.is_array());
  REQUIRE(v.as_array().size() == 2);
  CHECK(v.as_array()[0].as_object().at("modelhash").as_string() == "42");
  const auto& ours = v.as_array()[1].as_object();
  CHECK(ours.at("modelhash").as_string() == p.hash());
  CHECK(ours.at("modelvalue").as_object().at("gradientTime").as_array().size() == 25);
  CHECK(ours.at("modelvalue").as_object().at("gradientSize").as_array()[0].as_int64() == 4'000'000);
  const auto& split = ours.at("openaoe").as_object().at("split_strategy").as_object();
  CHECK(split.at("by_idx").as_array().back().as_int64() == 24);
  double sum = 0;
  for (const auto& x : split.at("by_size").as_array()) sum += x.to_number<double>();
  CHECK(sum == doctest::Approx(100.0));
}

TEST_CASE("gdat job: a corrupt bank is an error and is left as it is") {
  Fixture f;
  fs::create_directories(f.bank.file().parent_path());
  for (const std::string& text :
       {std::string("[{\"modelhash\": 1}]"), std::string("{\"not\": \"an array\"}"),
        std::string("[{\"modelhash\": \"1\", \"openaoe\": {\"schema_version\": 9}}]"),
        std::string("[{\"modelhash\": ")}) {
    std::ofstream(f.bank.file()) << text;
    const auto r = aoe::run_gdat(layers_profile(), Cluster{}, f.bank, f.options());
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message.find(f.bank.file().string()) != std::string::npos);
    CHECK(read(f.bank.file()) == text);
  }
}

TEST_CASE("gdat job: the result file") {
  Fixture f;
  const auto r = aoe::run_gdat(layers_profile(), Cluster{.devices = 16}, f.bank, f.options());
  REQUIRE(r.has_value());
  CHECK(r->result_file.parent_path() == f.dir.path() / "work");
  CHECK(r->result_file.filename().string().starts_with("aoe_result_gdat_"));
  const auto g = gdat_part(r->result_file);
  const auto& rep = r->report;
  CHECK(g.at("model_baseline_performance(ms)").to_number<double>() ==
        doctest::Approx(rep.baseline.seconds * 1e3).epsilon(1e-6));
  CHECK(g.at("model_result_performance(ms)").to_number<double>() ==
        doctest::Approx(rep.result->seconds * 1e3).epsilon(1e-6));
  CHECK(g.at("dp_optimum_performance(ms)").to_number<double>() ==
        doctest::Approx(rep.optimum.seconds * 1e3).epsilon(1e-6));
  CHECK(std::string(g.at("model_performance_improvement").as_string()).ends_with("%"));
  CHECK(std::string(g.at("gap_to_optimum").as_string()).ends_with("%"));
  CHECK(g.at("gdat_tuning_result").as_string() == "tuning successful");
  const auto& split = g.at("split_strategy").as_object();
  CHECK(split.at("by_idx").as_array().back().as_int64() == 24);
  CHECK(split.at("source").as_string() == "search");
  CHECK(g.at("default_split_strategy").as_object().at("by_size").as_array().size() == 2);
  CHECK(g.at("search").as_object().at("policy").as_string() == "evolutionary");
  CHECK(g.at("repo_summary").as_object().at("repo_add_num").as_int64() == 1);
  CHECK(g.at("repo_summary").as_object().at("total_num").as_int64() == 1);
  CHECK(g.at("repo_key").as_string() == layers_profile().hash());
  CHECK(g.at("iteration").as_object().at("segments").as_array().size() ==
        rep.result->split.segments());
}

TEST_CASE("gdat job: exact keeps the optimum; one segment at most; any search policy") {
  Fixture f;
  auto o = f.options();
  o.exact = true;
  o.budget = {.evaluations = 8, .patience = 8};
  const auto r = aoe::run_gdat(layers_profile(), Cluster{.devices = 64}, f.bank, o);
  REQUIRE(r.has_value());
  CHECK(r->report.result->seconds == doctest::Approx(r->report.optimum.seconds));
  CHECK(r->report.strategy_source == "exact");

  aoe::test::TempDir other("gdat_job_one");
  aoe::gdat::GradientFusionBank bank(other.path(), "Ascend910A");
  auto one = f.options();
  one.max_segments = 1;
  const auto single = aoe::run_gdat(layers_profile(), Cluster{.devices = 64}, bank, one);
  REQUIRE(single.has_value());
  CHECK(single->report.result->split.segments() == 1);

  for (const char* policy : {"random", "annealing", "grid"}) {
    aoe::test::TempDir d(std::string("gdat_job_") + policy);
    aoe::gdat::GradientFusionBank b(d.path(), "Ascend910A");
    auto p = f.options();
    p.search = policy;
    const auto run = aoe::run_gdat(layers_profile(), Cluster{.devices = 16}, b, p);
    REQUIRE(run.has_value());
    CHECK(run->report.result->seconds <= run->report.baseline.seconds);
    CHECK(run->report.search_policy == policy);
  }
}

TEST_CASE("gdat job: bad options and inputs") {
  Fixture f;
  auto o = f.options();
  o.max_segments = 9;
  const auto nine = aoe::run_gdat(layers_profile(), Cluster{}, f.bank, o);
  REQUIRE_FALSE(nine.has_value());
  CHECK(nine.error().message.find("--segments") != std::string::npos);
  CHECK(nine.error().message.find("at most 8") != std::string::npos);
  o.max_segments = 0;
  CHECK_FALSE(aoe::run_gdat(layers_profile(), Cluster{}, f.bank, o).has_value());

  const auto zero = aoe::run_gdat(layers_profile(), Cluster{.devices = 0}, f.bank, f.options());
  REQUIRE_FALSE(zero.has_value());
  CHECK(zero.error().message.find("--devices") != std::string::npos);

  GradientProfile bad = layers_profile();
  bad.gradients[3].backward_seconds = -1;
  const auto negative = aoe::run_gdat(bad, Cluster{}, f.bank, f.options());
  REQUIRE_FALSE(negative.has_value());
  CHECK(negative.error().message.find("gradient 3") != std::string::npos);

  auto s = f.options();
  s.search = "nonsense";
  const auto unknown = aoe::run_gdat(layers_profile(), Cluster{}, f.bank, s);
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().message.find("nonsense") != std::string::npos);
}

TEST_CASE("gdat job: an interrupted job leaves a valid result file saying so") {
  Fixture f;
  std::atomic<bool> stop{true};
  auto o = f.options();
  o.run.stop = &stop;
  aoe::GdatJobResult partial;
  const auto r = aoe::run_gdat(layers_profile(), Cluster{.devices = 16}, f.bank, o, &partial);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == aoe::make_error_code(aoe::Errc::interrupted));
  const auto g = gdat_part(partial.result_file);
  CHECK(g.at("gdat_tuning_result").as_string() == "tune tuning incomplete");
  CHECK_FALSE(g.contains("model_result_performance(ms)"));
  CHECK(g.at("repo_summary").as_object().at("total_num").as_int64() == 0);
  CHECK(f.bank.records()->empty());
}

TEST_CASE(
    "gdat job: the bank's split and the default are the search's first points, measured once") {
  // BERT-base on 64 devices: a stored split that is the optimum, REPEAT_TUNE with a budget far
  // too small to find it by chance. Starting from it, the search's best is at least as fast; the
  // stored and the default splits are never measured again (their times are known).
  Fixture f;
  const GradientProfile p = model_profile("bert_base");
  const Cluster c{.devices = 64};
  const aoe::gdat::IterationModel model(p, c);
  const auto optimum = aoe::gdat::optimal_split(model, aoe::gdat::max_split_segments).split;
  REQUIRE(optimum.segments() > 1);
  aoe::gdat::GradientFusionRecord r;
  r.model_hash = p.hash();
  r.cluster = aoe::gdat_cluster_key(c, aoe::gdat::max_split_segments);
  r.model_name = p.name;
  r.split = optimum;
  r.by_size = optimum.size_percentages(p);
  r.iteration_seconds = model.seconds(optimum);
  r.default_seconds = model.seconds(aoe::gdat::default_split(p));
  REQUIRE(f.bank.store(r).has_value());

  const aoe::gdat::SplitSpace space(model.gradients(), aoe::gdat::max_split_segments);
  std::vector<aoe::Configuration> measured;
  auto o = f.options();
  o.repeat_tune = true;
  o.budget = {.evaluations = 16, .patience = 16};
  o.run.executor.ranks = 2;
  o.run.executor.run =
      [&](std::span<const aoe::GdatMeasureRequest> requests, std::span<const double>,
          const aoe::StepFunction<aoe::GdatMeasureRequest, std::vector<aoe::Measurement>>& local) {
        std::vector<aoe::Result<std::vector<aoe::Measurement>>> out;
        for (const auto& q : requests) {
          measured.insert(measured.end(), q.batch.begin(), q.batch.end());
          out.emplace_back(local(q));
        }
        return out;
      };
  const auto job = aoe::run_gdat(p, c, f.bank, o);
  REQUIRE(job.has_value());
  const auto& rep = job->report;
  REQUIRE(rep.search_best.has_value());
  CHECK(rep.search_best->seconds <= r.iteration_seconds * (1 + 1e-12));
  CHECK(rep.outcome == aoe::GdatOutcome::reserved);
  CHECK(!measured.empty());
  for (const auto& known : {space.encode(optimum), space.encode(rep.baseline.split)}) {
    CHECK(std::count(measured.begin(), measured.end(), known) == 0);
  }
  CHECK(measured.size() + 2 <= rep.evaluations);
}

}  // namespace jobs_gdat_job_test
