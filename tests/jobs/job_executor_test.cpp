// The job skeleton (jobs/job_skeleton.hpp) as the three jobs use it: the executor of the
// tuning steps changes nothing in the outputs; a record that another process stores between a
// job's bank lookup and its store is kept and accounted once (`account`); OPAT's bank holds
// what its tuned model uses, and operators of one choice share its list; the batch queue hands
// each ticket its reply.
#include "support/temp_dir.hpp"
#include <aoe/graph/fusion.hpp>
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/gdat/backward_derivation.hpp>
#include <aoe/jobs/gdat/gdat_job.hpp>
#include <aoe/jobs/opat/opat_job.hpp>
#include <aoe/jobs/sgat/graph_bank.hpp>
#include <aoe/jobs/sgat/sgat_job.hpp>
#include <aoe/jobs/simulator_backend.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <regex>
#include <span>
#include <string>
#include <vector>

namespace jobs_job_executor_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

aoe::Graph example(const std::string& name) {
  auto g =
      aoe::load_graph(std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/" + name + ".json");
  REQUIRE(g.has_value());
  return std::move(*g);
}

aoe::sim::Soc soc910a() { return aoe::sim::Soc::builtin("Ascend910A").value(); }

// An executor that runs the steps here, in reverse order, and calls `after` once after the
// first batch of steps (before the job accounts them), as another process would act meanwhile.
template <class Request, class Reply>
aoe::StepExecutor<Request, Reply> test_executor(std::function<void()> after = {}) {
  aoe::StepExecutor<Request, Reply> e;
  e.ranks = 3;
  auto done = std::make_shared<bool>(false);
  e.run = [after = std::move(after), done](std::span<const Request> requests,
                                           std::span<const double> /*costs*/,
                                           const aoe::StepFunction<Request, Reply>& local) {
    std::vector<aoe::Result<Reply>> out(requests.size(), aoe::Result<Reply>(Reply{}));
    for (std::size_t i = requests.size(); i-- > 0;) out[i] = local(requests[i]);
    if (after && !*done) after();
    *done = true;
    return out;
  };
  return e;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A result file's text without its run fields (report name, tuning time).
std::string result_text(const fs::path& p) {
  static const std::regex stamps(R"re(report_\d+_\d+_\d+|"tuning_time\(s\)":[0-9.eE+-]+)re");
  return std::regex_replace(read(p), stamps, "");
}

// Copies the bank files of `from` over those of `to` (lock files left alone), as a second
// process that tuned the same model meanwhile would have written them.
void copy_bank(const fs::path& from, const fs::path& to) {
  for (const auto& e : fs::recursive_directory_iterator(from)) {
    if (!e.is_regular_file() || e.path().extension() == ".lock") continue;
    const fs::path dest = to / fs::relative(e.path(), from);
    fs::create_directories(dest.parent_path());
    fs::copy_file(e.path(), dest, fs::copy_options::overwrite_existing);
  }
}

aoe::OpatOptions opat_options(const fs::path& work, const aoe::SimulatorBackend& backend) {
  return aoe::OpatOptions{.scope = backend.scope(),
                          .search = "evolutionary",
                          .budget = {.evaluations = 48, .patience = 48},
                          .seed = 11,
                          .format_tuning = true,
                          .parallel = 2,
                          .run = {.result_dir = work}};
}

}  // namespace

TEST_CASE("opat: another executor (steps in another order) writes the same bank and files") {
  aoe::test::TempDir dir("executor_opat");
  const aoe::Graph g = example("mobilenet_v2");
  aoe::SimulatorBackend backend(soc910a());
  aoe::KnowledgeBank one({.custom_root = dir.path() / "one"});
  aoe::KnowledgeBank two({.custom_root = dir.path() / "two"});
  const auto a = aoe::run_opat(g, backend, one, opat_options(dir.path() / "w1", backend));
  auto o = opat_options(dir.path() / "w2", backend);
  o.run.executor = test_executor<aoe::OpatStepRequest, aoe::StepOutcome>();
  const auto b = aoe::run_opat(g, backend, two, o);
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  REQUIRE(a->report.operators.size() > aoe::job_wave_width);  // several waves
  CHECK(result_text(a->result_file) == result_text(b->result_file));
  CHECK(read(a->tuned_model_file) == read(b->tuned_model_file));
  for (const auto kind : {aoe::KnowledgeKind::schedule, aoe::KnowledgeKind::format}) {
    const auto ea = one.entries(backend.scope(), kind);
    const auto eb = two.entries(backend.scope(), kind);
    REQUIRE(ea.has_value());
    REQUIRE(eb.has_value());
    CHECK(!ea->empty());
    REQUIRE(ea->size() == eb->size());
    for (const auto& [key, r] : *ea) {
      CAPTURE(key);
      REQUIRE(eb->contains(key));
      CHECK(r.configuration == eb->at(key).configuration);
      CHECK(r.value == eb->at(key).value);
    }
  }
}

TEST_CASE("opat: the bank holds the configuration the tuned model uses, kind by kind") {
  aoe::test::TempDir dir("opat_bank_model");
  const aoe::Graph g = example("mobilenet_v2");
  aoe::SimulatorBackend backend(soc910a());
  aoe::KnowledgeBank bank({.custom_root = dir.path() / "bank"});
  const auto options = opat_options(dir.path() / "work", backend);
  const auto job = aoe::run_opat(g, backend, bank, options);
  REQUIRE(job.has_value());
  const auto fused = aoe::fuse(g);
  std::size_t compared = 0;
  for (const auto& rep : job->report.operators) {
    if (rep.failed()) continue;
    const auto f = std::find_if(fused.begin(), fused.end(), [&](const aoe::FusedOperator& x) {
      return x.op.name == rep.op_name;
    });
    REQUIRE(f != fused.end());
    for (std::size_t k = 0; k < rep.kinds.size(); ++k) {
      if (rep.kinds[k].outcome == aoe::OpatOutcome::hit) continue;  // written by another op
      const auto key =
          aoe::make_bank_key(f->op, rep.kinds[k].kind, options.scope, options.impl_mode);
      const auto stored = bank.lookup(key);
      REQUIRE(stored.has_value());
      REQUIRE(stored->has_value());  // record_unsatisfied: every tuned kind has a record
      CAPTURE(rep.op_name);
      CAPTURE(aoe::to_string(rep.kinds[k].kind));
      CHECK((*stored)->configuration == rep.knowledge[k].second);
      ++compared;
    }
  }
  CHECK(compared > 10);
  // Operators of one choice (a bank hit on a key tuned before it) hold one list, shared.
  const auto& ops = job->report.operators;
  std::size_t same = 0;
  std::size_t different = 0;
  for (std::size_t a = 0; a < ops.size(); ++a) {
    for (std::size_t b = 0; b < a; ++b) {
      const bool equal = ops[a].knowledge == ops[b].knowledge;
      CHECK(ops[a].knowledge.shares_with(ops[b].knowledge) == equal);
      ++(equal ? same : different);
    }
  }
  CHECK(same > 0);
  CHECK(different > 0);
}

TEST_CASE("opat, sgat, gdat: a record stored by another process meanwhile is kept, counted once") {
  aoe::test::TempDir dir("kept");
  SUBCASE("opat") {
    const aoe::Graph g = example("gpt2_block");
    aoe::SimulatorBackend backend(soc910a());
    aoe::KnowledgeBank first({.custom_root = dir.path() / "first"});
    const auto a = aoe::run_opat(g, backend, first, opat_options(dir.path() / "w1", backend));
    REQUIRE(a.has_value());
    REQUIRE(a->report.count(aoe::OpatOutcome::add) > 0);
    aoe::KnowledgeBank second({.custom_root = dir.path() / "second"});
    auto o = opat_options(dir.path() / "w2", backend);
    o.run.executor = test_executor<aoe::OpatStepRequest, aoe::StepOutcome>(
        [&] { copy_bank(dir.path() / "first", dir.path() / "second"); });
    const auto b = aoe::run_opat(g, backend, second, o);
    REQUIRE(b.has_value());
    // The first wave found what the other process stored: nothing added, the same model.
    CHECK(b->report.count(aoe::OpatOutcome::add) == 0);
    CHECK(b->report.count(aoe::OpatOutcome::update) == 0);
    CHECK(b->report.result_ms() == a->report.result_ms());
    CHECK(read(b->tuned_model_file) == read(a->tuned_model_file));
    // The other process's records are in the bank as it wrote them. (Not byte for byte: a
    // default record, whose time reads back from the file 1 ulp off, is written again.)
    const auto ea = first.entries(backend.scope(), aoe::KnowledgeKind::schedule);
    const auto eb = second.entries(backend.scope(), aoe::KnowledgeKind::schedule);
    REQUIRE(ea.has_value());
    REQUIRE(eb.has_value());
    REQUIRE(ea->size() == eb->size());
    for (const auto& [key, r] : *ea) {
      CAPTURE(key);
      REQUIRE(eb->contains(key));
      CHECK(eb->at(key).configuration == r.configuration);
      CHECK(eb->at(key).provenance.policy == r.provenance.policy);
    }
  }
  SUBCASE("sgat") {
    const aoe::Graph g = example("resnet50");
    const aoe::SgatOptions base{.budget = {.evaluations = 24, .patience = 24}, .seed = 4};
    aoe::GraphBank first({.root = dir.path() / "first"});
    auto o1 = base;
    o1.run.result_dir = dir.path() / "w1";
    const auto a = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), first, o1);
    REQUIRE(a.has_value());
    REQUIRE(a->report.count(aoe::SgatOutcome::add) > 0);
    aoe::GraphBank second({.root = dir.path() / "second"});
    auto o2 = base;
    o2.run.result_dir = dir.path() / "w2";
    o2.run.executor = test_executor<aoe::SgatStepRequest, aoe::StepOutcome>(
        [&] { copy_bank(dir.path() / "first", dir.path() / "second"); });
    const auto b = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), second, o2);
    REQUIRE(b.has_value());
    CHECK(b->report.count(aoe::SgatOutcome::add) == 0);
    CHECK(b->report.count(aoe::SgatOutcome::update) == 0);
    // The first wave's subgraphs beat the default, but the other process's records were kept:
    // reserved (the bank's entry kept), not unsatisfied (nothing better than the default).
    CHECK(b->report.count(aoe::SgatOutcome::reserved) > 0);
    CHECK(b->report.result_ms() == a->report.result_ms());
    CHECK(read(b->tuned_model_file) == read(a->tuned_model_file));
    CHECK(read(second.file("Ascend910A")) == read(first.file("Ascend910A")));  // untouched
  }
  SUBCASE("gdat") {
    const auto profile = aoe::gdat::derive_gradient_profile(example("bert_base"), soc910a());
    REQUIRE(profile.has_value());
    const aoe::gdat::Cluster cluster{.devices = 16};
    const aoe::GdatOptions base{.budget = {.evaluations = 400, .patience = 400}, .seed = 2};
    aoe::gdat::GradientFusionBank first(dir.path() / "first", "Ascend910A");
    auto o1 = base;
    o1.run.result_dir = dir.path() / "w1";
    const auto a = aoe::run_gdat(*profile, cluster, first, o1);
    REQUIRE(a.has_value());
    REQUIRE(a->report.outcome == aoe::GdatOutcome::add);
    aoe::gdat::GradientFusionBank second(dir.path() / "second", "Ascend910A");
    auto o2 = base;
    o2.run.result_dir = dir.path() / "w2";
    o2.run.executor = test_executor<aoe::GdatMeasureRequest, std::vector<aoe::Measurement>>(
        [&] { copy_bank(dir.path() / "first", dir.path() / "second"); });
    const auto b = aoe::run_gdat(*profile, cluster, second, o2);
    REQUIRE(b.has_value());
    CHECK(b->report.outcome == aoe::GdatOutcome::reserved);  // not added: it was there, kept
    REQUIRE(b->report.result.has_value());
    CHECK(b->report.result->split == a->report.result->split);  // the job uses its own best
    CHECK(read(second.file()) == read(first.file()));           // untouched
  }
}

TEST_CASE("job skeleton: account says reserved when another process's record was kept") {
  const auto kept = [] { return aoe::Result<aoe::StoreOutcome>(aoe::StoreOutcome::kept); };
  const auto added = [] { return aoe::Result<aoe::StoreOutcome>(aoe::StoreOutcome::added); };
  for (const bool stored : {false, true}) {
    CAPTURE(stored);
    // The search beat what the task started from, but the bank holds an entry at least as
    // good, stored meanwhile: the job uses its own best, the bank's entry is kept.
    const auto a = aoe::account(stored, false, true, true, kept, added);
    REQUIRE(a.has_value());
    CHECK(a->outcome == aoe::JobOutcome::reserved);
    CHECK(a->use_found);
    const auto written = aoe::account(stored, false, true, true, added, added);
    REQUIRE(written.has_value());
    CHECK(written->outcome == (stored ? aoe::JobOutcome::update : aoe::JobOutcome::add));
    const auto none = aoe::account(stored, false, false, true, kept, kept);
    REQUIRE(none.has_value());
    CHECK(none->outcome == (stored ? aoe::JobOutcome::reserved : aoe::JobOutcome::unsatisfied));
    CHECK(!none->use_found);
  }
}

TEST_CASE("job skeleton: the batch queue hands each ticket its reply, waited for in any order") {
  for (const bool with_run : {false, true}) {
    CAPTURE(with_run);
    std::vector<int> ran;  // requests in the order they ran
    aoe::StepExecutor<int, int> executor;
    if (with_run) {
      executor.run = [&](std::span<const int> requests, std::span<const double> costs,
                         const aoe::StepFunction<int, int>& local) {
        CHECK(costs.size() == requests.size());
        std::vector<aoe::Result<int>> out;
        for (const int q : requests) out.emplace_back(local(q));
        return out;
      };
    }
    const aoe::StepFunction<int, int> square = [&ran](const int& q) {
      ran.push_back(q);
      return q * q;
    };
    const auto queue = aoe::make_step_queue(executor, square);
    std::vector<std::size_t> tickets;
    for (int q = 0; q < 5; ++q) tickets.push_back(queue->submit(q, 1.0));
    CHECK(queue->wait(tickets[3]).value() == 9);  // runs the five queued
    CHECK(queue->wait(tickets[0]).value() == 0);
    for (int q = 5; q < 8; ++q) tickets.push_back(queue->submit(q, 1.0));
    CHECK(queue->wait(tickets[6]).value() == 36);  // runs the three queued since
    CHECK(queue->wait(tickets[1]).value() == 1);
    CHECK(queue->wait(tickets[2]).value() == 4);
    CHECK(queue->wait(tickets[4]).value() == 16);
    CHECK(queue->wait(tickets[7]).value() == 49);
    CHECK(queue->wait(tickets[5]).value() == 25);
    CHECK(ran == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
    tickets.push_back(queue->submit(8, 1.0));  // after every slot was dropped
    CHECK(tickets.back() == 8);
    CHECK(queue->wait(tickets.back()).value() == 64);
  }
}

}  // namespace jobs_job_executor_test
