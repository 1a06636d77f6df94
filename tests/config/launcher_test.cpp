// What an MPI launcher tells the process it started (aoe/config/launcher.hpp): the ranks and
// this one's rank, from each launcher's variables, and nothing from a Slurm allocation alone.
#include "support/fake_env.hpp"
#include <aoe/config/launcher.hpp>

#include <doctest/doctest.h>

#include <string>

namespace config_launcher_test {  // apart from this area's other files in a unity build

TEST_CASE("launcher: each launcher's variables give the ranks and the rank") {
  struct Case {
    const char* size_name;
    const char* rank_name;
  };
  for (const Case c :
       {Case{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, Case{"PMI_SIZE", "PMI_RANK"},
        Case{"MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK"}}) {
    CAPTURE(c.size_name);
    const auto env = aoe::test::fake_env({{c.size_name, "4"}, {c.rank_name, "2"}});
    std::string variable;
    CHECK(aoe::launcher_ranks(env, &variable) == 4);
    CHECK(variable == std::string(c.size_name) + "=4");
    CHECK(aoe::launcher_rank(env) == 2);
  }
  const auto srun = aoe::test::fake_env({{"SLURM_STEP_NUM_TASKS", "3"}, {"SLURM_PROCID", "1"}});
  CHECK(aoe::launcher_ranks(srun) == 3);
  CHECK(aoe::launcher_rank(srun) == 1);
}

TEST_CASE("launcher: one process when no launcher, one rank, or no number says otherwise") {
  std::string variable = "untouched";
  CHECK(aoe::launcher_ranks(aoe::test::fake_env({}), &variable) == 1);
  CHECK(variable == "untouched");
  CHECK(aoe::launcher_rank(aoe::test::fake_env({})) == 0);
  // A Slurm allocation (sbatch, salloc) without a task that srun started.
  CHECK(aoe::launcher_ranks(aoe::test::fake_env({{"SLURM_STEP_NUM_TASKS", "8"}})) == 1);
  CHECK(aoe::launcher_ranks(aoe::test::fake_env({{"OMPI_COMM_WORLD_SIZE", "1"}})) == 1);
  CHECK(aoe::launcher_ranks(aoe::test::fake_env({{"OMPI_COMM_WORLD_SIZE", "4x"}})) == 1);
  CHECK(aoe::launcher_ranks(
            aoe::test::fake_env({{"PMI_SIZE", ""}, {"MV2_COMM_WORLD_SIZE", "2"}})) == 2);
  CHECK(aoe::launcher_rank(aoe::test::fake_env({{"PMI_RANK", "-"}, {"SLURM_PROCID", "5"}})) == 5);
}

}  // namespace config_launcher_test
