// `aoe --job_type=1` (SGAT) in-process through run_sgat_command: the bundled ResNet-50 and
// BERT-base improve over the untuned graph and hit the graph bank on a second run; exit codes
// for a bad model, a bad search, a corrupt bank and an interruption; the --Fnonhomo_split flag;
// the dispatch of `aoe` (--job_type=1, AOE_MODE=1).
#include "cli.hpp"
#include "sgat_command.hpp"
#include "support/temp_dir.hpp"

#include <CLI/CLI.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace tools_aoe_sgat_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

struct Run {
  int code = 0;
  std::string out;
  std::string err;
};

aoe::Environment environment(const aoe::test::TempDir& dir) {
  fs::create_directories(dir.path() / "bank");
  const std::map<std::string, std::string> vars{
      {"TUNE_BANK_PATH", (dir.path() / "bank").string()},
      {"ASCEND_WORK_PATH", (dir.path() / "work").string()},
      {"TUNING_PARALLEL_NUM", "2"}};
  return aoe::read_environment([vars](const char* name) -> std::optional<std::string> {
           const auto it = vars.find(name);
           if (it == vars.end()) return std::nullopt;
           return it->second;
         })
      .value();
}

Run run(const aoe_tool::CommonOptions& common, const aoe::Environment& env,
        aoe_tool::SgatFlags flags = {}, bool stop_now = false) {
  std::ostringstream out;
  std::ostringstream err;
  std::atomic<bool> stop{stop_now};
  const aoe_tool::Io io{.out = out, .err = err, .stop = &stop, .interactive = false};
  const int code = aoe_tool::run_sgat_command(
      common, flags, env, aoe::sim::Soc::builtin(common.soc_version).value(), io);
  return {code, out.str(), err.str()};
}

aoe_tool::CommonOptions common(const std::string& model) {
  aoe_tool::CommonOptions c;
  c.model = std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/" + model + ".json";
  c.job_type = 1;
  c.budget = 24;  // a small exact budget keeps the test fast in Debug
  return c;
}

std::string last_line(const std::string& text) {
  const auto end = text.find_last_not_of('\n');
  const auto start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

boost::json::object summary_of(const fs::path& work, std::size_t which) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(work)) {
    if (e.path().filename().string().starts_with("aoe_result_sgat_")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() > which);
  std::ifstream in(files[which]);
  std::ostringstream s;
  s << in.rdbuf();
  const auto root = boost::json::parse(s.str()).as_object();
  return root.begin()->value().as_array()[1].at("SGAT").at("repo_summary").as_object();
}

}  // namespace

TEST_CASE("aoe sgat: ResNet-50 and BERT-base improve; a second run hits the graph bank") {
  for (const auto& [model, subgraphs] :
       {std::pair<std::string, std::int64_t>{"resnet50", 17}, {"bert_base", 24}}) {
    CAPTURE(model);
    aoe::test::TempDir dir("sgat_tool_" + model);
    const auto env = environment(dir);
    const auto first = run(common(model), env);
    INFO(first.err);
    REQUIRE(first.code == aoe_tool::exit_success);
    CHECK(first.out.find("aoe: SGAT on " + model) != std::string::npos);
    CHECK(first.out.find("[1/" + std::to_string(subgraphs) + "] ") != std::string::npos);
    // Each subgraph's line ends in its times' kind, as the summary line says it.
    std::istringstream lines(first.out);
    std::int64_t labelled = 0;
    for (std::string line; std::getline(lines, line);) {
      if (!line.starts_with("[")) continue;
      CHECK(line.ends_with(", simulated"));
      ++labelled;
    }
    CHECK(labelled == subgraphs);
    const std::string last = last_line(first.out);
    const std::string prefix = model + " process finished. Performance improved by ";
    REQUIRE(last.rfind(prefix, 0) == 0);
    CHECK(std::stod(last.substr(prefix.size())) > 0.0);  // faster than the untuned graph
    CHECK(fs::exists(dir.path() / "bank" / "ascend910a_l2cache.json"));

    const auto second = run(common(model), env);
    REQUIRE(second.code == aoe_tool::exit_success);
    CHECK(second.out.find(std::to_string(subgraphs) + " bank hits") != std::string::npos);
    CHECK(last_line(second.out) == last);  // the same strategies, the same figure
    const auto s = summary_of(dir.path() / "work", 1);
    CHECK(s.at("repo_hit_num").as_int64() == subgraphs);
    CHECK(s.at("total_num").as_int64() == subgraphs);
  }
}

TEST_CASE("aoe sgat: exit codes for a bad model, a bad search, a corrupt bank, an interruption") {
  aoe::test::TempDir dir("sgat_tool_codes");
  const auto env = environment(dir);
  auto c = common("resnet50");
  c.model = (dir.path() / "missing.json").string();
  auto r = run(c, env);
  CHECK(r.code == aoe_tool::exit_input);
  CHECK(r.err.find("missing.json") != std::string::npos);

  c = common("bert_base");
  c.search = "psychic";
  r = run(c, env);
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find("--search") != std::string::npos);

  std::ofstream(dir.path() / "bank" / "ascend910a_l2cache.json") << "not json\n";
  r = run(common("bert_base"), env);
  CHECK(r.code == aoe_tool::exit_bank);
  CHECK(r.err.find("ascend910a_l2cache.json:1:") != std::string::npos);
  fs::remove(dir.path() / "bank" / "ascend910a_l2cache.json");

  r = run(common("bert_base"), env, {}, true);
  CHECK(r.code == aoe_tool::exit_interrupted);
  CHECK(r.err.find("tune tuning incomplete") != std::string::npos);
}

TEST_CASE("aoe sgat: --Fnonhomo_split is a flag of the command line") {
  CLI::App app{"aoe"};
  aoe_tool::SgatFlags flags;
  aoe_tool::add_sgat_options(app, flags);
  const char* argv[] = {"aoe", "--Fnonhomo_split"};
  app.parse(2, argv);
  CHECK(flags.nonhomo_split);
  aoe::test::TempDir dir("sgat_tool_nonhomo");
  const auto r = run(common("bert_base"), environment(dir), flags);
  CHECK(r.code == aoe_tool::exit_success);
  CHECK(r.out.find("uneven slices allowed") != std::string::npos);
}

TEST_CASE("aoe sgat: `aoe --job_type=1` and AOE_MODE=1 run subgraph tuning") {
  aoe::test::TempDir dir("sgat_tool_cli");
  fs::create_directories(dir.path() / "bank");
  const std::string model =
      std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/gpt2_block.json";
  for (const bool by_mode : {false, true}) {
    std::map<std::string, std::string> vars{{"TUNE_BANK_PATH", (dir.path() / "bank").string()},
                                            {"ASCEND_WORK_PATH", (dir.path() / "work").string()},
                                            {"TUNING_PARALLEL_NUM", "2"}};
    std::vector<std::string> args{"aoe", "--model=" + model, "--budget=8", "--Fnonhomo_split"};
    if (by_mode) {
      vars["AOE_MODE"] = "1";
    } else {
      args.emplace_back("--job_type=1");
    }
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out;
    std::ostringstream err;
    std::atomic<bool> stop{false};
    const int code = aoe_tool::run(
        static_cast<int>(argv.size()), argv.data(),
        [vars](const char* name) -> std::optional<std::string> {
          const auto it = vars.find(name);
          if (it == vars.end()) return std::nullopt;
          return it->second;
        },
        out, err, &stop, false);
    INFO(err.str());
    CHECK(code == aoe_tool::exit_success);
    CHECK(out.str().find("aoe: SGAT on gpt2_block") != std::string::npos);
    CHECK(last_line(out.str()).rfind("gpt2_block process finished. Performance improved by ", 0) ==
          0);
  }
  CHECK(fs::exists(dir.path() / "bank" / "ascend910a_l2cache.json"));
}

}  // namespace tools_aoe_sgat_test
