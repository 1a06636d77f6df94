// SGAT's graph bank (JSON lines, version line, atomic rewrite, corrupt files left alone), its
// result file (the documented field names, AOE's truncated percentages, "tune tuning incomplete")
// and the job (add / hit / reserved / unsatisfied / failed, second run all hits, REPEAT_TUNE,
// interruption, the tuned model).
#include "support/temp_dir.hpp"
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/sgat/graph_bank.hpp>
#include <aoe/jobs/sgat/sgat_job.hpp>
#include <aoe/jobs/sgat/sgat_report.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace jobs_sgat_job_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

aoe::sim::Soc soc910a() { return aoe::sim::Soc::builtin("Ascend910A").value(); }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> keys(const boost::json::object& o) {
  std::vector<std::string> out;
  for (const auto& kv : o) out.emplace_back(kv.key());
  return out;
}

// Two residual blocks of one structure: MatMul, then Add of the block input. The split cuts
// between them (o1 is all that is live, and two nodes read it); both have one key.
const char* const blocks = R"({"format_version": 1, "name": "blocks",
  "tensors": {"x": {"shape": [2048, 1024], "dtype": "float16"}, "w1": {"shape": [1024, 1024], "dtype": "float16"}, "m1": {"shape": [2048, 1024], "dtype": "float16"},
              "o1": {"shape": [2048, 1024], "dtype": "float16"}, "w2": {"shape": [1024, 1024], "dtype": "float16"}, "m2": {"shape": [2048, 1024], "dtype": "float16"},
              "o2": {"shape": [2048, 1024], "dtype": "float16"}},
  "nodes": [{"name": "mm1", "type": "MatMul", "inputs": ["x", "w1"], "outputs": ["m1"]},
            {"name": "add1", "type": "Add", "inputs": ["m1", "x"], "outputs": ["o1"]},
            {"name": "mm2", "type": "MatMul", "inputs": ["o1", "w2"], "outputs": ["m2"]},
            {"name": "add2", "type": "Add", "inputs": ["m2", "o1"], "outputs": ["o2"]}]})";

// Grid search over every strategy of the small spaces here: the optimum, for a stable test.
aoe::SgatOptions options(const aoe::test::TempDir& dir) {
  return aoe::SgatOptions{.search = "grid",
                          .budget = {.evaluations = 64, .patience = 64},
                          .parallel = 2,
                          .run = {.result_dir = dir.path() / "work"}};
}

aoe::GraphBankRecord record(const std::string& key, const std::string& signature, double value) {
  aoe::GraphBankRecord r;
  r.repo_key = key;
  r.signature = signature;
  r.model_name = "m";
  r.knowledge = {{"cut", aoe::Value(2)}, {"fmt.0.0", aoe::Value("FRACTAL_NZ")}};
  r.value = value;
  r.feature["feature"] = boost::json::array{};
  r.strategy["end2EndTime"] = value * 1e6;
  r.provenance = {"evolutionary", 12, "2025-01-01T00:00:00Z"};
  return r;
}

}  // namespace

TEST_CASE("sgat bank: JSON lines after a version line, one file per SoC, stored by key") {
  aoe::test::TempDir dir("sgat_bank");
  aoe::GraphBank bank({.root = dir.path() / "graph"});
  CHECK(bank.file("Ascend910B1") == dir.path() / "graph" / "ascend910b1_l2cache.json");
  const aoe::SubgraphKey key{"sgat1;0:Exp(ext:[4]:float16:ND)->[4]:float16:ND!{};", 0};
  const aoe::SubgraphKey k{key.signature, aoe::subgraph_key_hash(key.signature)};
  CHECK(bank.lookup("Ascend910A", k).value() == std::nullopt);  // no file yet: empty
  REQUIRE(bank.check_writable("Ascend910A").has_value());

  CHECK(bank.store("Ascend910A", record(k.repo_key(), k.signature, 2e-6)).value() ==
        aoe::StoreOutcome::added);
  CHECK(bank.store("Ascend910A", record(k.repo_key(), k.signature, 3e-6)).value() ==
        aoe::StoreOutcome::kept);
  CHECK(bank.store("Ascend910A", record(k.repo_key(), k.signature, 1e-6)).value() ==
        aoe::StoreOutcome::updated);
  // Another structure under the same 64-bit key (a collision) is another line, not a hit.
  CHECK(bank.store("Ascend910A", record(k.repo_key(), "other", 5e-6)).value() ==
        aoe::StoreOutcome::added);

  aoe::GraphBank fresh({.root = dir.path() / "graph"});  // reads the file again
  const auto found = fresh.lookup("Ascend910A", k).value();
  REQUIRE(found.has_value());
  CHECK(found->value == 1e-6);
  CHECK(found->knowledge.size() == 2);
  CHECK(found->knowledge[1].value.as_text() == "FRACTAL_NZ");
  CHECK(found->provenance.policy == "evolutionary");
  CHECK(fresh.lookup("Ascend910B1", k).value() == std::nullopt);  // another SoC, another file

  const std::string text = read(bank.file("Ascend910A"));
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  CHECK(line == R"({"version": "2.1"})");
  std::size_t records = 0;
  while (std::getline(lines, line)) {
    const auto o = boost::json::parse(line).as_object();
    CHECK(o.at("repo_key").as_string() == k.repo_key());
    CHECK(o.at("strategy").as_object().contains("end2EndTime"));
    ++records;
  }
  CHECK(records == 2);
}

TEST_CASE("sgat bank: a corrupt file or another version is an error and is left untouched") {
  aoe::test::TempDir dir("sgat_bank_bad");
  aoe::GraphBank bank({.root = dir.path()});
  const auto file = bank.file("Ascend910A");
  const auto try_with = [&](const std::string& content) {
    std::ofstream(file, std::ios::binary) << content;
    bank.reload();
    const auto r = bank.lookup("Ascend910A", aoe::SubgraphKey{"s", 42});
    REQUIRE_FALSE(r.has_value());
    const auto s = bank.store("Ascend910A", record("42", "s", 1e-6));
    REQUIRE_FALSE(s.has_value());
    CHECK(read(file) == content);  // never rewritten
    return r.error();
  };
  auto e = try_with("{\"version\": \"2.1\"}\n{\"repo_key\": \"42\", \"signature\"\n");
  CHECK(e.code == aoe::make_error_code(aoe::Errc::parse_error));
  CHECK(e.message.find(file.string() + ":2: /: expected a JSON object on one line") !=
        std::string::npos);
  CHECK(e.message.find("left as it is") != std::string::npos);
  e = try_with("{\"version\": \"2.1\"}\n{\"repo_key\": \"4x2\", \"signature\": \"s\"}\n");
  CHECK(e.message.find(":2: /repo_key: expected a decimal number") != std::string::npos);
  e = try_with(
      "{\"version\": \"2.1\"}\n{\"repo_key\": \"42\", \"signature\": \"s\", \"knowledge\": {}, "
      "\"value\": 1, \"feature\": {}, \"strategy\": {}}\n");
  CHECK(e.message.find(":2: /strategy/end2EndTime: expected a number") != std::string::npos);
  e = try_with("{\"repo_key\": \"42\"}\n");
  CHECK(e.message.find(":1: /version: expected the first line {\"version\": \"2.1\"}") !=
        std::string::npos);
  e = try_with("{\"version\": \"3.0\"}\n");
  CHECK(e.code == aoe::make_error_code(aoe::Errc::unsupported_version));
  CHECK(e.message.find("expected \"2.1\", found \"3.0\"") != std::string::npos);
}

TEST_CASE("sgat report: the seed's fields, AOE's truncated percentages, incomplete runs") {
  // AOE's documented figures: 5.600486 -> 3.610442 ms is "55.11%", 4.58434 -> 2.573203 "78.15%".
  CHECK(aoe::sgat_percent(aoe::SgatReport::improvement(5.600486, 3.610442)) == "55.11%");
  CHECK(aoe::sgat_percent(aoe::SgatReport::improvement(5.58434, 3.573203)) == "56.28%");
  CHECK(aoe::sgat_percent(aoe::SgatReport::improvement(4.58434, 2.573203)) == "78.15%");
  CHECK(aoe::sgat_percent(0) == "0.00%");

  aoe::SgatReport r;
  r.tuning_name = "net";
  r.timestamp = "20250101_120000123";
  r.tid = 77;
  r.tuning_seconds = 19.4;
  r.baseline_ms = 10;
  const auto sub = [](aoe::SgatOutcome o, double before, double after, const char* key) {
    aoe::SgatSubgraphReport s;
    s.outcome = o;
    s.default_ms = before;
    s.before_ms = before;
    s.after_ms = after;
    s.repo_key = key;
    return s;
  };
  r.subgraphs = {sub(aoe::SgatOutcome::add, 5.58434, 3.573203, "1024942313106047484"),
                 sub(aoe::SgatOutcome::update, 4.58434, 2.573203, "1024942313106057586"),
                 sub(aoe::SgatOutcome::hit, 1, 1, "7")};
  const auto running = aoe::to_json(r);
  {
    const auto& entries = running.at("report_20250101_120000123_77").as_array();
    CHECK(keys(entries[0].as_object().at("basic").as_object()) ==
          std::vector<std::string>{"tuning_name"});
    const auto& sgat = entries[1].as_object().at("SGAT").as_object();
    CHECK(sgat.at("sgat_tuning_result").as_string() == "tune tuning incomplete");
    CHECK_FALSE(sgat.contains("model_result_performance(ms)"));
  }
  r.finished = true;
  const auto done = aoe::to_json(r);
  REQUIRE(keys(done) == std::vector<std::string>{"report_20250101_120000123_77"});
  const auto& entries = done.at("report_20250101_120000123_77").as_array();
  REQUIRE(entries.size() == 2);
  CHECK(keys(entries[0].as_object()) == std::vector<std::string>{"basic"});
  const auto& basic = entries[0].as_object().at("basic").as_object();
  CHECK(keys(basic) == std::vector<std::string>{"tuning_name", "tuning_time(s)"});
  CHECK(basic.at("tuning_time(s)").as_int64() == 19);
  const auto& sgat = entries[1].as_object().at("SGAT").as_object();
  CHECK(keys(sgat) == std::vector<std::string>{"model_baseline_performance(ms)",
                                               "model_performance_improvement",
                                               "model_result_performance(ms)",
                                               "repo_modified_subgraphs", "repo_summary"});
  CHECK(sgat.at("model_baseline_performance(ms)").as_double() == 10.0);
  CHECK(sgat.at("model_result_performance(ms)").as_double() == doctest::Approx(5.977726));
  const auto& modified = sgat.at("repo_modified_subgraphs").as_object();
  CHECK(keys(modified) == std::vector<std::string>{"add_repo_subgraphs", "update_repo_subgraphs"});
  const auto& add = modified.at("add_repo_subgraphs").as_array();
  REQUIRE(add.size() == 1);
  CHECK(keys(add[0].as_object()) ==
        std::vector<std::string>{"performance_after_tune(ms)", "performance_before_tune(ms)",
                                 "performance_improvement", "repo_key"});
  CHECK(add[0].at("performance_improvement").as_string() == "56.28%");
  CHECK(add[0].at("repo_key").as_string() == "1024942313106047484");
  CHECK(modified.at("update_repo_subgraphs")
            .as_array()[0]
            .at("performance_improvement")
            .as_string() == "78.15%");
  const auto& summary = sgat.at("repo_summary").as_object();
  CHECK(keys(summary) == std::vector<std::string>{"repo_add_num", "repo_hit_num",
                                                  "repo_reserved_num", "repo_unsatisfied_num",
                                                  "repo_update_num", "total_num"});
  CHECK(summary.at("repo_hit_num").as_int64() == 1);
  CHECK(summary.at("total_num").as_int64() == 3);
  CHECK(aoe::sgat_result_file_name("20250101_120000123") ==
        "aoe_result_sgat_20250101_120000123_" + std::to_string(::getpid()) + ".json");
}

TEST_CASE("sgat job: tunes, banks, reports; a second run hits; REPEAT_TUNE re-tunes") {
  aoe::test::TempDir dir("sgat_job");
  const auto g = aoe::parse_graph(blocks, "blocks.json").value();
  aoe::GraphBank bank({.root = dir.path() / "graph"});
  const auto first = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), bank, options(dir));
  REQUIRE_MESSAGE(first.has_value(), (first ? "" : first.error().message));
  const auto& rep = first->report;
  REQUIRE(rep.subgraphs.size() == 2);
  CHECK(first->subgraphs == 2);
  CHECK(rep.subgraphs[0].outcome == aoe::SgatOutcome::add);
  CHECK(rep.subgraphs[1].outcome == aoe::SgatOutcome::hit);  // same structure: stored above
  CHECK(rep.subgraphs[0].repo_key == rep.subgraphs[1].repo_key);
  CHECK(rep.subgraphs[0].evaluations > 0);
  CHECK(rep.subgraphs[0].after_ms < rep.subgraphs[0].before_ms);
  CHECK(rep.result_ms() < rep.baseline_ms);

  // The result file: AOE's documented schema, complete.
  const auto root = boost::json::parse(read(first->result_file)).as_object();
  const auto& sgat = root.begin()->value().as_array()[1].as_object().at("SGAT").as_object();
  CHECK_FALSE(sgat.contains("sgat_tuning_result"));
  CHECK(sgat.at("repo_summary").at("repo_add_num").as_int64() == 1);
  CHECK(sgat.at("repo_summary").at("repo_hit_num").as_int64() == 1);
  CHECK(sgat.at("repo_modified_subgraphs")
            .at("add_repo_subgraphs")
            .as_array()[0]
            .at("repo_key")
            .as_string() == rep.subgraphs[0].repo_key);
  CHECK(first->result_file.parent_path() == dir.path() / "work");

  // The bank holds one strategy, in AOE's strategy format.
  const auto lines = bank.entries("Ascend910A").value();
  REQUIRE(lines.size() == 1);
  const auto& group = lines[0].strategy.at("group").as_array()[0].as_object();
  CHECK(group.at("cut").as_array().size() == 2);  // per kernel operator
  CHECK(group.at("scopeId").as_array().size() == 2);
  CHECK(lines[0].feature.at("feature").as_array()[0].at("struct").as_array().size() == 2);
  CHECK(lines[0].strategy.at("end2EndTime").as_double() ==
        doctest::Approx(rep.subgraphs[0].after_ms * 1e3).epsilon(1e-4));

  // The tuned model loads again and says which strategy each node runs under.
  const auto tuned = aoe::load_graph(first->tuned_model_file);
  REQUIRE(tuned.has_value());
  const auto model = boost::json::parse(read(first->tuned_model_file)).as_object();
  const auto& node0 = model.at("nodes").as_array()[0].as_object();
  CHECK(node0.at("sgat").at("repo_key").as_string() == rep.subgraphs[0].repo_key);
  CHECK(node0.at("sgat").as_object().contains("fused_type"));

  // Second run: every subgraph from the bank, nothing rewritten.
  const std::string bank_text = read(bank.file("Ascend910A"));
  aoe::GraphBank again({.root = dir.path() / "graph"});
  const auto second = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), again, options(dir));
  REQUIRE(second.has_value());
  CHECK(second->report.count(aoe::SgatOutcome::hit) == 2);
  CHECK(second->report.result_ms() == doctest::Approx(rep.result_ms()));
  CHECK(read(bank.file("Ascend910A")) == bank_text);

  // REPEAT_TUNE: the first is tuned again from the bank's strategy; the grid finds nothing
  // faster than the optimum it found before, so the bank's entry is kept; the second reuses it.
  auto repeat = options(dir);
  repeat.repeat_tune = true;
  const auto third = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), again, repeat);
  REQUIRE(third.has_value());
  CHECK(third->report.subgraphs[0].outcome == aoe::SgatOutcome::reserved);
  CHECK(third->report.subgraphs[0].evaluations > 0);
  CHECK(third->report.subgraphs[1].outcome == aoe::SgatOutcome::hit);
  CHECK(read(bank.file("Ascend910A")) == bank_text);
}

TEST_CASE("sgat job: nothing faster is unsatisfied, recorded as the default, then a hit") {
  aoe::test::TempDir dir("sgat_unsat");
  const auto g = aoe::parse_graph(R"({"format_version": 1, "name": "one",
    "tensors": {"x": {"shape": [7, 64], "dtype": "float16"}, "y": {"shape": [7, 64], "dtype": "float16"}},
    "nodes": [{"name": "e", "type": "Exp", "inputs": ["x"], "outputs": ["y"]}]})",
                                  "one.json")
                     .value();
  aoe::GraphBank bank({.root = dir.path() / "graph"});
  const auto first = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), bank, options(dir));
  REQUIRE(first.has_value());
  REQUIRE(first->report.subgraphs.size() == 1);
  CHECK(first->report.subgraphs[0].outcome == aoe::SgatOutcome::unsatisfied);
  CHECK(first->report.result_ms() == first->report.baseline_ms);  // never worse
  const auto lines = bank.entries("Ascend910A").value();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].provenance.policy == "default");
  // Where the stored time came from, read back from the file
  // (docs/reports.md#simulated-or-measured).
  REQUIRE(lines[0].provenance.timing.has_value());
  CHECK(lines[0].provenance.timing->kind == aoe::TimingKind::simulated);
  CHECK(lines[0].provenance.timing->source == aoe::sim::model_timing("Ascend910A").source);
  CHECK(read(bank.file("Ascend910A")).find(R"("timing":{"kind":"simulated","source":")") !=
        std::string::npos);
  const auto second = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), bank, options(dir));
  REQUIRE(second.has_value());
  CHECK(second->report.subgraphs[0].outcome == aoe::SgatOutcome::hit);
}

TEST_CASE("sgat job: an interruption leaves a valid file that says tuning is incomplete") {
  aoe::test::TempDir dir("sgat_stop");
  const auto g = aoe::parse_graph(blocks, "blocks.json").value();
  aoe::GraphBank bank({.root = dir.path() / "graph"});
  std::atomic<bool> stop{false};
  auto o = options(dir);
  o.run.stop = &stop;
  o.run.on_event = [&stop](const aoe::SgatEvent& e) {
    if (e.kind == aoe::SgatEvent::Kind::started) stop = true;
  };
  aoe::SgatJobResult partial;
  const auto r = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), bank, o, &partial);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == aoe::make_error_code(aoe::Errc::interrupted));
  const auto root = boost::json::parse(read(partial.result_file)).as_object();
  const auto& entries = root.begin()->value().as_array();
  CHECK_FALSE(entries[0].at("basic").as_object().contains("tuning_time(s)"));
  const auto& sgat = entries[1].at("SGAT").as_object();
  CHECK(sgat.at("sgat_tuning_result").as_string() == "tune tuning incomplete");
  CHECK(sgat.at("model_baseline_performance(ms)").as_double() > 0);
  CHECK_FALSE(sgat.contains("model_result_performance(ms)"));
  CHECK_FALSE(fs::exists(partial.tuned_model_file));
  CHECK(bank.entries("Ascend910A").value().empty());
}

TEST_CASE("sgat job: a subgraph the simulator cannot time fails, the others are tuned") {
  aoe::test::TempDir dir("sgat_fail");
  std::string text = blocks;
  text.replace(text.find("\"type\": \"Add\""), 13, "\"type\": \"Frobnicate\"");
  const auto g = aoe::parse_graph(text, "odd.json").value();
  aoe::GraphBank bank({.root = dir.path() / "graph"});
  const auto r = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), bank, options(dir));
  REQUIRE(r.has_value());
  REQUIRE(r->report.subgraphs.size() == 2);
  CHECK(r->report.subgraphs[0].outcome == aoe::SgatOutcome::failed);
  CHECK(r->report.subgraphs[0].error.find("Frobnicate") != std::string::npos);
  CHECK(r->report.subgraphs[1].outcome == aoe::SgatOutcome::add);
  const auto root = boost::json::parse(read(r->result_file)).as_object();
  const auto& sgat = root.begin()->value().as_array()[1].at("SGAT").as_object();
  CHECK(sgat.at("sgat_tuning_result").as_string() == "tuning failed");
  CHECK(sgat.at("tuning_failed_subgraphs").as_array().size() == 1);
  CHECK(sgat.at("repo_summary").at("total_num").as_int64() == 1);
  // A search name the framework does not know is an error before anything runs.
  auto bad = options(dir);
  bad.search = "psychic";
  const auto e = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), bank, bad);
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().message.find("psychic") != std::string::npos);
}

TEST_CASE("sgat job: a stale bank record (its strategy not in the space) is replaced, then hit") {
  aoe::test::TempDir dir("sgat_stale");
  const auto g = aoe::parse_graph(blocks, "blocks.json").value();
  aoe::GraphBank fresh({.root = dir.path() / "fresh"});
  REQUIRE(aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), fresh, options(dir)).has_value());
  const auto tuned = fresh.entries("Ascend910A").value();
  REQUIRE(!tuned.empty());
  // Another version wrote the key with a parameter this space does not have, and a time faster
  // than anything the job can find: without replace, its result would be `kept`.
  aoe::GraphBank bank({.root = dir.path() / "graph"});
  for (auto r : tuned) {
    r.knowledge = {{"retired_parameter", aoe::Value(1)}};
    r.value = 1e-12;
    REQUIRE(bank.store("Ascend910A", r).value() == aoe::StoreOutcome::added);
  }
  const auto first = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), bank, options(dir));
  REQUIRE(first.has_value());
  CHECK(first->report.count(aoe::SgatOutcome::hit) < first->report.total());
  for (const auto& r : bank.entries("Ascend910A").value()) {
    CHECK(r.knowledge != std::vector<aoe::NamedValue>{{"retired_parameter", aoe::Value(1)}});
    CHECK(r.value > 1e-12);
  }
  aoe::GraphBank again({.root = dir.path() / "graph"});
  const auto second = aoe::run_sgat(g, aoe::SimulatorBackend(soc910a()), again, options(dir));
  REQUIRE(second.has_value());
  CHECK(second->report.count(aoe::SgatOutcome::hit) == second->report.total());
}

}  // namespace jobs_sgat_job_test
