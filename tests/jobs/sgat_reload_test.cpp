// SGAT's --reload (docs/sgat.md#reload): a job cut short after any subgraph (its bank and its
// checkpoint as they were at that moment) and reloaded ends with the bank, result file and
// tuned model of the job that was never cut short; the checkpoint of another job is refused
// naming the field that differs; a corrupt checkpoint is an error naming the file and the field;
// without a checkpoint the job starts afresh; a finished job's reload writes the same files.
// scripts/sgat_reload.py does the same with kill -9 of the real `aoe` (ctest sgat_reload.short).
#include "support/temp_dir.hpp"
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/sgat/sgat_checkpoint.hpp>
#include <aoe/jobs/sgat/sgat_job.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace jobs_sgat_reload_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

aoe::sim::Soc soc910a() { return aoe::sim::Soc::builtin("Ascend910A").value(); }

aoe::Graph model() {
  return aoe::load_graph(fs::path(AOE_TESTS_SOURCE_DIR) / ".." / "examples" / "models" /
                         "resnet50.json")
      .value();
}

aoe::SgatOptions options(const fs::path& work) {
  return aoe::SgatOptions{.search = "random",
                          .budget = {.evaluations = 12, .patience = 12},
                          .seed = 3,
                          .parallel = 1,
                          .run = {.result_dir = work}};
}

/// The bank's lines without their provenance time stamps.
std::string bank_text(const fs::path& file) {
  std::istringstream in(aoe::test::read_text(file));
  std::string out;
  std::string line;
  while (std::getline(in, line)) {
    auto v = boost::json::parse(line);
    if (auto* p = v.as_object().if_contains("provenance")) p->as_object().erase("timestamp");
    out += boost::json::serialize(v) + "\n";
  }
  return out;
}

/// The result file without the report's key (its stamp and tid) and the tuning time.
std::string result_text(const fs::path& file) {
  auto v = boost::json::parse(aoe::test::read_text(file));
  auto& entries = v.as_object().begin()->value().as_array();
  entries[0].as_object()["basic"].as_object().erase("tuning_time(s)");
  return boost::json::serialize(entries);
}

struct Outputs {
  std::string bank;
  std::string result;
  std::string tuned_model;
};

Outputs outputs(const aoe::GraphBank& bank, const aoe::SgatJobResult& r) {
  return {bank_text(bank.file("Ascend910A")), result_text(r.result_file),
          aoe::test::read_text(r.tuned_model_file)};
}

}  // namespace

TEST_CASE("sgat reload: cut short after any subgraph and reloaded, the job ends as if uncut") {
  const aoe::Graph graph = model();
  const auto soc = soc910a();
  aoe::test::TempDir dir("sgat_reload");
  // The job never cut short, with a snapshot of its bank and checkpoint as each subgraph ends
  // (what a kill -9 at that moment leaves).
  aoe::GraphBank bank({.root = dir.path() / "bank"});
  auto o = options(dir.path() / "work");
  const fs::path checkpoint = aoe::sgat_checkpoint_file(o.run.result_dir, graph.name);
  std::map<std::size_t, std::pair<std::string, std::string>> snapshots;
  o.run.on_event = [&](const aoe::SgatEvent& e) {
    if (e.kind == aoe::SgatEvent::Kind::finished && e.index % 5 == 2) {
      snapshots[e.index] = {aoe::test::read_text(bank.file("Ascend910A")),
                            aoe::test::read_text(checkpoint)};
    }
  };
  const auto whole = aoe::run_sgat(graph, aoe::SimulatorBackend(soc), bank, o);
  REQUIRE(whole);
  REQUIRE(whole->subgraphs > 16);  // more than two waves: kills inside the job
  REQUIRE(snapshots.size() >= 3);
  const Outputs expected = outputs(bank, *whole);
  const auto finished = aoe::read_sgat_checkpoint(checkpoint, bank).value();
  REQUIRE(finished);
  CHECK(finished->finished);
  CHECK(finished->next == whole->subgraphs);

  for (const auto& [index, snapshot] : snapshots) {
    CAPTURE(index);
    aoe::test::write_text(bank.file("Ascend910A"), snapshot.first);
    aoe::test::write_text(checkpoint, snapshot.second);
    aoe::GraphBank again({.root = dir.path() / "bank"});
    auto r = options(dir.path() / "work");
    r.reload = true;
    const auto resumed = aoe::run_sgat(graph, aoe::SimulatorBackend(soc), again, r);
    REQUIRE(resumed);
    REQUIRE(resumed->resumed_from);
    CHECK(*resumed->resumed_from == index / aoe::job_wave_width * aoe::job_wave_width);
    CHECK(resumed->result_file == whole->result_file);
    const Outputs got = outputs(again, *resumed);
    CHECK(got.bank == expected.bank);
    CHECK(got.result == expected.result);
    CHECK(got.tuned_model == expected.tuned_model);
    CHECK(resumed->report.count(aoe::SgatOutcome::hit) ==
          whole->report.count(aoe::SgatOutcome::hit));
  }

  // The last reload ended the job: a reload of it writes the same files again.
  aoe::GraphBank again({.root = dir.path() / "bank"});
  auto r = options(dir.path() / "work");
  r.reload = true;
  const auto done = aoe::run_sgat(graph, aoe::SimulatorBackend(soc), again, r);
  REQUIRE(done);
  CHECK(done->resumed_from == whole->subgraphs);
  const Outputs got = outputs(again, *done);
  CHECK(got.bank == expected.bank);
  CHECK(got.result == expected.result);
  CHECK(got.tuned_model == expected.tuned_model);
}

TEST_CASE("sgat reload: another job's checkpoint is refused, naming what differs") {
  const aoe::Graph graph = model();
  const auto soc = soc910a();
  aoe::test::TempDir dir("sgat_reload_other");
  aoe::GraphBank bank({.root = dir.path() / "bank"});
  auto o = options(dir.path() / "work");
  o.budget = {.evaluations = 4, .patience = 4};
  REQUIRE(aoe::run_sgat(graph, aoe::SimulatorBackend(soc), bank, o));
  const std::string bank_before = aoe::test::read_text(bank.file("Ascend910A"));
  o.seed = 4;
  o.reload = true;
  const auto r = aoe::run_sgat(graph, aoe::SimulatorBackend(soc), bank, o);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
  CHECK(r.error().message.find("its seed is \"3\", this job's is \"4\"") != std::string::npos);
  CHECK(r.error().message.find("aoe_sgat_reload_resnet50.json") != std::string::npos);
  CHECK(aoe::test::read_text(bank.file("Ascend910A")) == bank_before);  // nothing undone
}

TEST_CASE("sgat reload: a corrupt checkpoint names the file and the field; none starts afresh") {
  const aoe::Graph graph = model();
  const auto soc = soc910a();
  aoe::test::TempDir dir("sgat_reload_corrupt");
  aoe::GraphBank bank({.root = dir.path() / "bank"});
  auto o = options(dir.path() / "work");
  o.budget = {.evaluations = 4, .patience = 4};
  o.reload = true;
  // No checkpoint: the job starts from the first subgraph.
  const auto fresh = aoe::run_sgat(graph, aoe::SimulatorBackend(soc), bank, o);
  REQUIRE(fresh);
  CHECK_FALSE(fresh->resumed_from);
  const fs::path checkpoint = aoe::sgat_checkpoint_file(o.run.result_dir, graph.name);
  auto v = boost::json::parse(aoe::test::read_text(checkpoint));
  v.as_object()["subgraphs"].as_array()[1].as_object()["after_ms"] = "fast";
  aoe::test::write_text(checkpoint, boost::json::serialize(v));
  auto r = aoe::run_sgat(graph, aoe::SimulatorBackend(soc), bank, o);
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find(checkpoint.string() +
                               ": /subgraphs/1/after_ms: expected a number") != std::string::npos);
  aoe::test::write_text(checkpoint, "{\"version\": 1, \"job\": {}");
  r = aoe::run_sgat(graph, aoe::SimulatorBackend(soc), bank, o);
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find(checkpoint.string()) != std::string::npos);
  v.as_object()["version"] = 2;
  aoe::test::write_text(checkpoint, boost::json::serialize(v));
  r = aoe::run_sgat(graph, aoe::SimulatorBackend(soc), bank, o);
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("/version: 2, and this build reads SGAT checkpoints of version 1") !=
        std::string::npos);
}

TEST_CASE("sgat bank: restore puts a record back or removes it, keeping the others") {
  aoe::test::TempDir dir("sgat_bank_restore");
  aoe::GraphBank bank({.root = dir.path()});
  aoe::GraphBankRecord a;
  a.repo_key = std::to_string(aoe::subgraph_key_hash("a"));
  a.signature = "a";
  a.value = 2e-3;
  a.strategy["end2EndTime"] = 2000.0;
  a.knowledge = {{"cut", aoe::Value(2)}};
  aoe::GraphBankRecord b = a;
  b.repo_key = std::to_string(aoe::subgraph_key_hash("b"));
  b.signature = "b";
  REQUIRE(bank.store("Ascend910A", a));
  const std::string only_a = aoe::test::read_text(bank.file("Ascend910A"));
  REQUIRE(bank.store("Ascend910A", b));
  const aoe::SubgraphKey kb{"b", aoe::subgraph_key_hash("b")};
  REQUIRE(bank.restore("Ascend910A", kb, std::nullopt));
  CHECK(aoe::test::read_text(bank.file("Ascend910A")) == only_a);
  aoe::GraphBankRecord faster = a;
  faster.value = 1e-3;
  REQUIRE(bank.store("Ascend910A", faster));
  REQUIRE(bank.restore("Ascend910A", {"a", aoe::subgraph_key_hash("a")}, a));
  CHECK(aoe::test::read_text(bank.file("Ascend910A")) == only_a);
  const auto line = bank.to_line(a).value();
  const auto back = bank.from_line(line, "here").value();
  CHECK(bank.to_line(back).value() == line);
}

}  // namespace jobs_sgat_reload_test
