// `aoe --job_type=4` (GDAT), in-process: GDAT's flags parsed by CLI11 through add_gdat_options,
// then run_gdat_command with the common options as cli.cpp passes them; exit codes and output.
#include "cli.hpp"
#include "gdat_command.hpp"
#include "run_aoe.hpp"
#include "support/temp_dir.hpp"

#include <CLI/CLI.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace tools_aoe_gdat_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

using aoe::test::TempDir;
using aoe::test::write_text;

std::string models_dir() { return std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/"; }

const char* const profile_text = R"({"format_version": 1, "name": "toy",
  "forward_time_us": 5000,
  "gradients": [{"name": "w0", "backward_time_us": 500, "bytes": 4000000},
                {"name": "w1", "backward_time_us": 500, "bytes": 4000000},
                {"name": "w2", "backward_time_us": 500, "bytes": 4000000},
                {"name": "w3", "backward_time_us": 500, "bytes": 4000000},
                {"name": "w4", "backward_time_us": 500, "bytes": 100000}]})";

using Run = aoe::test::AoeRun;

// Runs GDAT with `args` (GDAT's flags only) on `model`, the bank and work directory in `dir`.
Run run(const TempDir& dir, const std::string& model, std::vector<std::string> args,
        const std::atomic<bool>* stop = nullptr, std::optional<fs::path> bank = std::nullopt) {
  CLI::App app;
  aoe_tool::GdatFlags flags;
  aoe_tool::add_gdat_options(app, flags);
  std::vector<const char*> argv{"aoe"};
  for (const auto& a : args) argv.push_back(a.c_str());
  Run r;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    r.code = aoe_tool::exit_usage;
    r.err = e.what();
    return r;
  }
  aoe_tool::CommonOptions common;
  common.model = model;
  common.job_type = 4;
  aoe::Environment env;
  env.tune_bank_path = bank.value_or(dir.path() / "bank");
  env.ascend_work_path = dir.path() / "work";
  fs::create_directories(dir.path() / "bank");
  const auto soc = aoe::sim::Soc::builtin(common.soc_version);
  REQUIRE(soc.has_value());
  std::ostringstream out;
  std::ostringstream err;
  const aoe_tool::Io io{.out = out, .err = err, .stop = stop, .interactive = false};
  r.code = aoe_tool::run_gdat_command(common, flags, env, *soc, io);
  r.out = out.str();
  r.err = err.str();
  return r;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string last_line(const std::string& text) {
  const auto end = text.find_last_not_of('\n');
  const auto start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - start);
}

}  // namespace

TEST_CASE("aoe gdat: a bundled graph on 64 devices, then a bank hit") {
  TempDir dir("graph");
  const auto first = run(dir, models_dir() + "resnet50.json", {"--devices=64"});
  CHECK(first.code == aoe_tool::exit_success);
  CHECK(first.err.empty());
  CHECK(last_line(first.out).starts_with("resnet50 process finished. Performance improved by "));
  CHECK(has(first.out, "[1/3] default split [0, 109] [110, 160]"));
  // Each step's time says its kind, as the summary line does.
  std::istringstream lines(first.out);
  int steps = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("[")) continue;
    CHECK(line.ends_with(", simulated"));
    ++steps;
  }
  CHECK(steps == 3);
  CHECK(has(first.out, "aoe: set_split_strategy_by_idx(["));
  CHECK(has(first.out, "aoe: set_split_strategy_by_size(["));
  CHECK(fs::exists(dir.path() / "bank" / "Ascend910A_gradient_fusion.json"));
  std::size_t results = 0;
  for (const auto& e : fs::directory_iterator(dir.path() / "work")) {
    const auto name = e.path().filename().string();
    if (name.ends_with("_trace.json") || name.ends_with("_report.html")) continue;  // --report
    CHECK(name.starts_with("aoe_result_gdat_"));
    CHECK(boost::json::parse(aoe::test::read_text(e.path())).is_object());
    ++results;
  }
  CHECK(results == 1);
  const auto second = run(dir, models_dir() + "resnet50.json", {"--devices=64"});
  CHECK(second.code == aoe_tool::exit_success);
  CHECK(has(second.out, "bank hit, no search"));
  CHECK(has(second.out, "(bank hit)"));
}

TEST_CASE("aoe gdat: a gradient profile by --gradient_profile or as --model, and a cluster file") {
  TempDir dir("profile");
  const auto profile = write_text(dir.path() / "p.json", profile_text);
  const auto cluster = write_text(
      dir.path() / "c.json", R"({"devices": 16, "devices_per_server": 8, "topology": "ring"})");
  const auto a = run(
      dir, "",
      {"--gradient_profile=" + profile.string(), "--cluster=" + cluster.string(), "--segments=4"});
  CHECK(a.code == aoe_tool::exit_success);
  CHECK(has(a.out, "16 devices (2 x 8, ring), at most 4 segments"));
  CHECK(last_line(a.out).starts_with("toy process finished."));
  const auto b =
      run(dir, profile.string(),
          {"--devices=32", "--inter_bandwidth=25", "--gdat_exact", "--topology=two_level"});
  CHECK(b.code == aoe_tool::exit_success);
  CHECK(has(b.out, "32 devices (4 x 8, two_level)"));
}

TEST_CASE("aoe gdat: bad inputs and options get clear errors and their exit codes") {
  TempDir dir("bad");
  const std::string model = models_dir() + "resnet50.json";
  const auto nine = run(dir, model, {"--segments=9"});
  CHECK(nine.code == aoe_tool::exit_usage);
  CHECK(has(nine.err, "--segments=9: expected 1 to 8"));

  const auto zero = run(dir, model, {"--devices=0"});
  CHECK(zero.code == aoe_tool::exit_usage);
  CHECK(has(zero.err, "devices (--devices) = 0: expected at least 1 device"));

  CHECK(run(dir, model, {"--topology=mesh"}).code == aoe_tool::exit_usage);
  CHECK(run(dir, model, {"--devices=twelve"}).code == aoe_tool::exit_usage);
  CHECK(run(dir, "", {}).code == aoe_tool::exit_usage);

  const auto negative = write_text(dir.path() / "neg.json", R"({"name": "m", "gradients": [
      {"backward_time_us": 1, "bytes": 8}, {"backward_time_us": -2, "bytes": 8}]})");
  const auto neg = run(dir, "", {"--gradient_profile=" + negative.string()});
  CHECK(neg.code == aoe_tool::exit_input);
  CHECK(has(neg.err, negative.string() + ": /gradients/1/backward_time_us"));

  const auto missing = write_text(dir.path() / "missing.json", R"({"name": "m", "gradients": [
      {"name": "w", "bytes": 8}]})");
  const auto mis = run(dir, missing.string(), {});
  CHECK(mis.code == aoe_tool::exit_input);
  CHECK(has(mis.err, "/gradients/0/backward_time_us: missing"));

  const auto malformed =
      write_text(dir.path() / "broken.json", "{\"name\": \"m\", \"gradients\": [");
  const auto mal = run(dir, malformed.string(), {});
  CHECK(mal.code == aoe_tool::exit_input);
  CHECK(has(mal.err, "expected well-formed JSON"));

  const auto cluster = write_text(dir.path() / "c.json", R"({"devices": 0})");
  const auto cl = run(dir, model, {"--cluster=" + cluster.string()});
  CHECK(cl.code == aoe_tool::exit_input);
  CHECK(has(cl.err, cluster.string() + ": /devices: expected an integer >= 1"));

  CHECK(run(dir, (dir.path() / "none.json").string(), {}).code == aoe_tool::exit_input);

  // A graph with no trainable parameters: an input error (docs/cli.md, exit codes).
  const auto relu = write_text(dir.path() / "relu.json", R"({"format_version": 1, "name": "r",
      "tensors": {"x": {"shape": [4, 64], "dtype": "float16"},
                  "y": {"shape": [4, 64], "dtype": "float16"}},
      "nodes": [{"name": "relu", "type": "Relu", "inputs": ["x"], "outputs": ["y"]}]})");
  const auto none = run(dir, relu.string(), {});
  CHECK(none.code == aoe_tool::exit_input);
  CHECK(has(none.err, "no trainable parameters"));

  // A bank root that cannot be created: under a regular file.
  const auto file = write_text(dir.path() / "plain", "x");
  const auto bank = run(dir, write_text(dir.path() / "p.json", profile_text).string(), {}, nullptr,
                        file / "bank");
  CHECK(bank.code == aoe_tool::exit_bank);
  CHECK(has(bank.err, "gradient-fusion bank"));
}

TEST_CASE("aoe gdat: interrupted") {
  TempDir dir("stop");
  const std::atomic<bool> stop{true};
  const auto r = run(dir, write_text(dir.path() / "p.json", profile_text).string(), {}, &stop);
  CHECK(r.code == aoe_tool::exit_interrupted);
  CHECK(has(r.err, "tune tuning incomplete"));
}

TEST_CASE("aoe gdat: through aoe_tool::run, by --job_type=4 or AOE_MODE=4") {
  TempDir dir("run");
  auto vars = dir.job_env();
  vars["AOE_MODE"] = "4";
  const auto run_aoe = [&](const std::vector<std::string>& args) {
    return aoe::test::run_aoe(args, vars);
  };
  const std::string profile = write_text(dir.path() / "p.json", profile_text).string();
  const auto a = run_aoe({"--model=" + profile, "--job_type=4", "--devices=16"});
  CHECK(a.code == aoe_tool::exit_success);
  CHECK(last_line(a.out).starts_with("toy process finished. Performance improved by "));
  const auto b = run_aoe({"--model=" + profile, "--devices=16", "--log=warning"});  // AOE_MODE
  CHECK(b.code == aoe_tool::exit_success);
  CHECK(has(b.out, "(bank hit)"));
  const auto c = run_aoe({"--model=" + profile, "--job_type=4", "--segments=9"});
  CHECK(c.code == aoe_tool::exit_usage);
  CHECK(has(c.err, "--segments=9: expected 1 to 8"));
}

}  // namespace tools_aoe_gdat_test
