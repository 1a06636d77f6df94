// The tools under an MPI launcher (#14, docs/distributed.md): `mpirun -np 3 aoe-bench ...`
// spreads the repetitions over the ranks and writes what one process writes (ctest mpi.tools:
// these cases start mpirun themselves), and aoe-bench refuses a launcher it cannot use
// (mpi.aoe_command, no mpirun).
#include "support/skip.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace {

struct Run {
  int code = -1;  ///< the exit code; -1: killed by a signal
  std::string err;
};

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs a shell command line, stdout to /dev/null, its stderr captured.
Run run_shell(const std::string& command) {
  const std::string err_path = "tools_stderr.txt";
  const std::string line = "(" + command + ") >/dev/null 2>" + err_path;
  const int status = std::system(line.c_str());
  Run r;
  if (status != -1 && WIFEXITED(status)) r.code = WEXITSTATUS(status);
  r.err = read_text(err_path);
  return r;
}

// The launchers' variables unset, so that the tool sees only what the command gives it.
constexpr const char* clean_env =
    "env -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u MV2_COMM_WORLD_SIZE -u SLURM_STEP_NUM_TASKS "
    "-u SLURM_PROCID ";

}  // namespace

TEST_CASE("aoe command: aoe-bench started as one of several MPI ranks that it cannot use") {
#if !defined(AOE_TOOL_AOE_BENCH_PATH)
  aoe::test::skip("aoe-bench is not built (AOE_BUILD_TOOLS=OFF)");
#else
  // `record` measures on one device: never under a launcher (refused before MPI starts).
  const Run record =
      run_shell(std::string(clean_env) + "OMPI_COMM_WORLD_SIZE=2 '" AOE_TOOL_AOE_BENCH_PATH
                                         "' record --output never_written.json");
  CHECK(record.code == 2);
  CHECK(record.err.find("started as one of several MPI ranks (OMPI_COMM_WORLD_SIZE=2") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists("never_written.json"));
#if defined(AOE_WITH_MPI)
  // This build spreads the repetitions (the "tools under mpirun" cases run it under mpirun).
#else
  for (const std::string env :
       {"OMPI_COMM_WORLD_SIZE=3", "PMI_SIZE=2", "SLURM_STEP_NUM_TASKS=4 SLURM_PROCID=1"}) {
    CAPTURE(env);
    const Run r = run_shell(std::string(clean_env) + env +
                            " '" AOE_TOOL_AOE_BENCH_PATH
                            "' --input sim:res2a_branch2b --strategy random --budget 5 "
                            "--repeats 2 --seed 1 --json never_written.json");
    CHECK(r.code == 2);
    CHECK(r.err.find("this build has no MPI support") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists("never_written.json"));
  }
#endif
#endif
}

TEST_CASE("tools under mpirun: aoe-bench over 3 ranks writes what one process writes") {
#if !defined(AOE_TOOL_AOE_BENCH_PATH) || !defined(AOE_MPIEXEC)
  aoe::test::skip("needs aoe-bench built with aoe::mpi and mpiexec");
#else
  const std::string args =
      " --input sim:res2a_branch2b --strategy random,evolutionary --budget 20 --repeats 4 "
      "--seed 11";
  std::filesystem::remove_all("bench_ranks");
  std::filesystem::create_directories("bench_ranks");
  const Run one = run_shell(std::string(clean_env) + "'" AOE_TOOL_AOE_BENCH_PATH "'" + args +
                            " --json bench_ranks/one.json --plot bench_ranks/one.svg");
  REQUIRE(one.code == 0);
  const Run three =
      run_shell(std::string(clean_env) +
                AOE_MPIEXEC " " AOE_MPIEXEC_NUMPROC_FLAG " 3 '" AOE_TOOL_AOE_BENCH_PATH "'" + args +
                " --json bench_ranks/three.json --plot bench_ranks/three.svg");
  INFO(three.err);
  REQUIRE(three.code == 0);
  // 8 repetitions (2 strategies x 4), every rank ran some; rank 0 alone said so.
  const std::string said = "aoe-bench: 8 repetitions on 3 MPI ranks (per rank: ";
  const auto at = three.err.find(said);
  REQUIRE(at != std::string::npos);
  CHECK(three.err.find(said, at + 1) == std::string::npos);
  int a = 0, b = 0, c = 0;
  REQUIRE(std::sscanf(three.err.c_str() + at + said.size(), "%d, %d, %d)", &a, &b, &c) == 3);
  CHECK(a + b + c == 8);
  CHECK(a > 0);
  CHECK(b > 0);
  CHECK(c > 0);
  // The JSON holds no timing: byte for byte the same, as is the plot.
  const std::string json = read_text("bench_ranks/one.json");
  CHECK(json.size() > 100);
  CHECK(json == read_text("bench_ranks/three.json"));
  CHECK(read_text("bench_ranks/one.svg") == read_text("bench_ranks/three.svg"));
#endif
}
