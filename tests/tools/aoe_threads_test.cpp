// `TUNING_PARALLEL_NUM` changes how many candidates are measured at once, never what a job
// finds: OPAT, SGAT and GDAT with 1 and with 4 measuring threads write the same bank, result
// file and tuned model, apart from timestamps and the pid (docs/reliability.md).
#include "support/job_outputs.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace tools_aoe_threads_test {  // apart from this area's other files in a unity build

#if defined(AOE_TOOL_AOE_PATH)

namespace {

const std::string models = AOE_TESTS_SOURCE_DIR "/../examples/models/";

// Runs `aoe <args>` with `threads` measuring threads, its own bank and work directory under
// `root`; returns the exit code.
int run_aoe(const std::filesystem::path& root, int threads, const std::string& args) {
  std::filesystem::create_directories(root / "bank");
  std::filesystem::create_directories(root / "work");
  const std::string command =
      "TUNING_PARALLEL_NUM=" + std::to_string(threads) + " TUNE_BANK_PATH='" +
      (root / "bank").string() + "' ASCEND_WORK_PATH='" + (root / "work").string() +
      "' '" AOE_TOOL_AOE_PATH "' --progress_bar=off --report=off " + args + " >'" +
      (root / "stdout.txt").string() + "' 2>'" + (root / "stderr.txt").string() + "'";
  const int status = std::system(command.c_str());
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void check_same_outputs(const std::string& tag, const std::string& args) {
  const aoe::test::TempDir dir("aoe_threads_" + tag);
  REQUIRE(run_aoe(dir.path() / "one", 1, args) == 0);
  REQUIRE(run_aoe(dir.path() / "four", 4, args) == 0);
  const auto bank = aoe::test::job_outputs(dir.path() / "one" / "bank");
  const auto work = aoe::test::job_outputs(dir.path() / "one" / "work");
  REQUIRE(!bank.empty());  // the job wrote its bank and its result file
  REQUIRE(!work.empty());
  CHECK(bank == aoe::test::job_outputs(dir.path() / "four" / "bank"));
  const auto work4 = aoe::test::job_outputs(dir.path() / "four" / "work");
  REQUIRE(work.size() == work4.size());
  for (const auto& [name, text] : work) {
    CAPTURE(name);
    const auto it = work4.find(name);
    REQUIRE(it != work4.end());
    CHECK(text == it->second);
  }
}

}  // namespace
#endif

TEST_CASE("aoe: 1 and 4 measuring threads write the same outputs (OPAT, SGAT, GDAT)") {
#if !defined(AOE_TOOL_AOE_PATH)
  aoe::test::skip("the aoe command is not built (AOE_BUILD_TOOLS=OFF)");
#else
  SUBCASE("OPAT, Schedule and Format") {
    check_same_outputs("opat", "--job_type=2 --model='" + models +
                                   "mobilenet_v2.json' --Fop_format --budget=24 --seed=5");
  }
  SUBCASE("SGAT") {
    check_same_outputs("sgat", "--job_type=1 --model='" + models + "resnet50.json' --budget=40");
  }
  SUBCASE("GDAT") {
    check_same_outputs("gdat", "--job_type=4 --model='" + models + "bert_base.json' --budget=400");
  }
#endif
}

}  // namespace tools_aoe_threads_test
