// `mpirun -np 3 aoe ...` (docs/distributed.md): OPAT, SGAT and GDAT over three ranks write the
// bank, the result file and the tuned model that one process writes with the same seed, apart
// from timestamps and the pid (ctest mpi.aoe_command: the test itself runs outside mpirun and
// starts mpirun).
#include "support/job_outputs.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#if defined(AOE_TOOL_AOE_PATH) && defined(AOE_MPIRUN_3)
namespace {

// Runs `aoe <args>` (through `launcher`, empty for one process) with its own bank and work
// directory under `root`; returns the exit code.
int run_aoe(const std::string& launcher, const std::filesystem::path& root,
            const std::string& args) {
  std::filesystem::create_directories(root / "bank");
  std::filesystem::create_directories(root / "work");
  const std::string env =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "TUNE_BANK_PATH='" +
      (root / "bank").string() + "' ASCEND_WORK_PATH='" + (root / "work").string() + "' ";
  const std::string command =
      "env -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u MV2_COMM_WORLD_SIZE -u SLURM_STEP_NUM_TASKS "
      "-u SLURM_PROCID " +
      env + launcher + (launcher.empty() ? "" : " -x TUNE_BANK_PATH -x ASCEND_WORK_PATH ") +
      " '" AOE_TOOL_AOE_PATH "' --progress_bar=off --report=off " + args + " >'" +
      (root / "stdout.txt").string() + "' 2>'" + (root / "stderr.txt").string() + "'";
  const int status = std::system(command.c_str());
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One process, then three ranks: the same files, with the same contents.
// `files`: what the job writes in the work directory (the result file, and the tuned model for
// OPAT and SGAT).
void check_same_outputs(const std::string& tag, const std::string& args, std::size_t files) {
  const aoe::test::TempDir dir("mpi_jobs_" + tag);
  const auto one = dir.path() / "one";
  const auto three = dir.path() / "three";
  REQUIRE(run_aoe("", one, args) == 0);
  const int code = run_aoe(AOE_MPIRUN_3, three, args + " --log=info");
  INFO("stderr of mpirun: " << read(three / "stderr.txt"));
  REQUIRE(code == 0);
  CHECK(read(three / "stdout.txt").find("aoe: 3 MPI ranks") != std::string::npos);
  const auto a = aoe::test::job_outputs(one / "bank");
  const auto b = aoe::test::job_outputs(three / "bank");
  const auto wa = aoe::test::job_outputs(one / "work");
  const auto wb = aoe::test::job_outputs(three / "work");
  REQUIRE(!a.empty());  // the job wrote its bank
  REQUIRE(wa.size() >= files);
  CHECK(a == b);
  CHECK(wa == wb);
  for (const auto& [name, text] : wa) {
    CAPTURE(name);
    const auto it = wb.find(name);
    REQUIRE(it != wb.end());
    CHECK(text == it->second);
  }
}

const std::string models = AOE_TESTS_SOURCE_DIR "/../examples/models/";

}  // namespace
#endif

TEST_CASE("aoe command: mpirun -np 3 aoe (OPAT, SGAT, GDAT) writes what one process writes") {
#if !defined(AOE_TOOL_AOE_PATH)
  aoe::test::skip("the aoe command is not built (AOE_BUILD_TOOLS=OFF)");
#elif !defined(AOE_MPIRUN_3)
  aoe::test::skip("aoe was configured without aoe::mpi (Boost.MPI, Open MPI not found)");
#else
  SUBCASE("OPAT, Schedule and Format, a learned search") {
    // More than one wave of operators, in-job knowledge (hints, learned rows) between waves.
    check_same_outputs("opat",
                       "--job_type=2 --model='" + models +
                           "mobilenet_v2.json' --Fop_format --search=xgboost "
                           "--budget=24 --seed=5",
                       2);
  }
  SUBCASE("OPAT for the time-energy front: the objective travels with each step") {
    check_same_outputs("opat_pareto",
                       "--job_type=2 --model='" + models +
                           "resnet50.json' --soc_version=Ascend310P3 --objective=pareto "
                           "--budget=24 --seed=3",
                       2);
  }
  SUBCASE("SGAT") {
    check_same_outputs("sgat", "--job_type=1 --model='" + models + "resnet50.json' --budget=40", 2);
  }
  SUBCASE("GDAT: the search's batches over the ranks") {
    check_same_outputs("gdat", "--job_type=4 --model='" + models + "bert_base.json' --budget=400",
                       1);
  }
#endif
}
