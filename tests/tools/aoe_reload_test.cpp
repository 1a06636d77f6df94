// `aoe --reload` (docs/cli.md, docs/sgat.md#reload) through aoe_tool::run: a reload with no
// checkpoint (a warning; the job from the start) and one of a job that had ended (the same
// files again) give the result of a plain run; a checkpoint of another job is exit 2 naming the
// field; --reload with another job type is exit 2. Jobs cut short and continued: the library's
// tests (tests/jobs/sgat_reload_test.cpp) and kill -9 of the real binary
// (scripts/sgat_reload.py, ctest sgat_reload.short).
#include "cli.hpp"
#include "run_aoe.hpp"
#include "support/temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace tools_aoe_reload_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

std::map<std::string, std::string> vars(const aoe::test::TempDir& dir) {
  fs::create_directories(dir.path() / "bank");
  return {{"TUNE_BANK_PATH", (dir.path() / "bank").string()},
          {"ASCEND_WORK_PATH", (dir.path() / "work").string()},
          {"TUNING_PARALLEL_NUM", "2"}};
}

std::vector<std::string> args(const std::string& model, std::vector<std::string> more) {
  std::vector<std::string> a{
      "--model=" + std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/" + model + ".json",
      "--job_type=1", "--budget=8", "--seed=5", "--report=off"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

/// The result file named on stdout, without its report key and tuning time.
std::string result_of(const std::string& out) {
  const auto at = out.find("aoe: result file ");
  REQUIRE(at != std::string::npos);
  const auto start = at + std::string("aoe: result file ").size();
  auto v =
      boost::json::parse(aoe::test::read_text(out.substr(start, out.find('\n', start) - start)));
  auto& entries = v.as_object().begin()->value().as_array();
  entries[0].as_object()["basic"].as_object().erase("tuning_time(s)");
  return boost::json::serialize(entries);
}

}  // namespace

TEST_CASE("aoe --reload: without a checkpoint, and after the job ended, the same result") {
  aoe::test::TempDir whole("aoe_reload_whole");
  const auto expected = aoe::test::run_aoe(args("resnet50", {}), vars(whole));
  REQUIRE(expected.code == aoe_tool::exit_success);

  aoe::test::TempDir dir("aoe_reload_cut");
  const auto env = vars(dir);
  // No checkpoint yet: a warning, and the job runs from the first subgraph.
  const auto first = aoe::test::run_aoe(args("resnet50", {"--reload"}), env);
  REQUIRE(first.code == aoe_tool::exit_success);
  CHECK(first.err.find("aoe: warning: --reload: no checkpoint of resnet50 in the work directory") !=
        std::string::npos);
  CHECK(result_of(first.out) == result_of(expected.out));

  // The job has ended: a reload says so and writes the same files again.
  const fs::path checkpoint = dir.path() / "work" / "aoe_sgat_reload_resnet50.json";
  REQUIRE(boost::json::parse(aoe::test::read_text(checkpoint)).as_object()["finished"].as_bool());
  const auto done = aoe::test::run_aoe(args("resnet50", {"--reload"}), env);
  REQUIRE(done.code == aoe_tool::exit_success);
  CHECK(done.out.find("aoe: --reload: the job of " + checkpoint.string() +
                      " had ended; its result file and tuned model were written again") !=
        std::string::npos);
  CHECK(result_of(done.out) == result_of(expected.out));
}

TEST_CASE("aoe --reload: another job's checkpoint is exit 2; another job type is exit 2") {
  aoe::test::TempDir dir("aoe_reload_other");
  const auto env = vars(dir);
  REQUIRE(aoe::test::run_aoe(args("gpt2_block", {}), env).code == aoe_tool::exit_success);
  auto changed = args("gpt2_block", {"--reload"});
  changed[2] = "--budget=9";
  const auto other = aoe::test::run_aoe(changed, env);
  INFO(other.err);
  CHECK(other.code == aoe_tool::exit_usage);
  CHECK(other.err.find("is the checkpoint of another job: its evaluations is 8, this job's is 9") !=
        std::string::npos);
  const auto opat = aoe::test::run_aoe(
      {"--model=" + std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/gpt2_block.json",
       "--job_type=2", "--reload"},
      env);
  CHECK(opat.code == aoe_tool::exit_usage);
  CHECK(opat.err == "aoe: --reload: resumes subgraph tuning (--job_type=1) only, as AOE's\n");
}

}  // namespace tools_aoe_reload_test
