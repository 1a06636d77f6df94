#include "support/fake_env.hpp"
#include <aoe/config/environment.hpp>

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace {}  // namespace

TEST_CASE("environment: defaults when nothing is set") {
  const auto env = aoe::read_environment(aoe::test::fake_env({{"HOME", "/home/u"}}));
  REQUIRE(env.has_value());
  CHECK_FALSE(env->repeat_tune);
  CHECK(env->tuning_parallel_num == 8);
  CHECK(env->te_parallel_compiler == 8);
  CHECK(env->ascend_device_id == 0);
  CHECK_FALSE(env->aoe_mode);
  CHECK(env->op_bank_root() == std::filesystem::path("/home/u/Ascend/latest/data/aoe/custom/op"));
  CHECK(env->graph_bank_root() ==
        std::filesystem::path("/home/u/Ascend/latest/data/aoe/custom/graph"));
}

TEST_CASE("environment: bank root priority TUNE_BANK_PATH > ASCEND_CACHE_PATH > HOME") {
  const auto dir = std::filesystem::temp_directory_path();
  auto env = aoe::read_environment(aoe::test::fake_env(
      {{"HOME", "/h"}, {"ASCEND_CACHE_PATH", "/cache"}, {"TUNE_BANK_PATH", dir.string()}}));
  REQUIRE(env.has_value());
  CHECK(env->op_bank_root() == dir);
  env =
      aoe::read_environment(aoe::test::fake_env({{"HOME", "/h"}, {"ASCEND_CACHE_PATH", "/cache"}}));
  REQUIRE(env.has_value());
  CHECK(env->op_bank_root() == std::filesystem::path("/cache/aoe_data"));
}

TEST_CASE("environment: valid values are read") {
  const auto env =
      aoe::read_environment(aoe::test::fake_env({{"AOE_MODE", "2"},
                                                 {"REPEAT_TUNE", "True"},
                                                 {"TUNING_PARALLEL_NUM", "3"},
                                                 {"TE_PARALLEL_COMPILER", "32"},
                                                 {"ASCEND_DEVICE_ID", "1"},
                                                 {"ASCEND_WORK_PATH", "/tmp/work-nonexistent"}}));
  REQUIRE(env.has_value());
  CHECK(env->aoe_mode == 2);
  CHECK(env->repeat_tune);
  CHECK(env->tuning_parallel_num == 3);
  CHECK(env->te_parallel_compiler == 32);
  CHECK(env->ascend_device_id == 1);
  CHECK(env->work_path() == std::filesystem::path("/tmp/work-nonexistent"));
  CHECK(aoe::read_environment(aoe::test::fake_env({{"REPEAT_TUNE", "false"}}))->repeat_tune ==
        false);
}

TEST_CASE("environment: bad values are errors naming the variable") {
  const std::map<std::string, std::string> bad[] = {
      {{"AOE_MODE", "3"}},
      {{"REPEAT_TUNE", "yes please"}},
      {{"TUNING_PARALLEL_NUM", "0"}},
      {{"TUNING_PARALLEL_NUM", "65"}},
      {{"TUNING_PARALLEL_NUM", "4x"}},
      {{"TE_PARALLEL_COMPILER", "33"}},
      {{"ASCEND_DEVICE_ID", "-1"}},
      {{"TUNE_BANK_PATH", "/nonexistent/aoe/bank/dir"}},
  };
  for (const auto& vars : bad) {
    const auto env = aoe::read_environment(aoe::test::fake_env(vars));
    REQUIRE_FALSE(env.has_value());
    const std::string name = vars.begin()->first;
    INFO(env.error().message);
    CHECK(env.error().message.find(name) != std::string::npos);
    CHECK(env.error().message.find(vars.begin()->second) != std::string::npos);
  }
}

TEST_CASE("environment: ASCEND_WORK_PATH naming a file is rejected") {
  const auto file = std::filesystem::temp_directory_path() / "aoe_env_test_file";
  { std::ofstream(file) << "x"; }
  const auto env =
      aoe::read_environment(aoe::test::fake_env({{"ASCEND_WORK_PATH", file.string()}}));
  std::filesystem::remove(file);
  REQUIRE_FALSE(env.has_value());
  CHECK(env.error().message.find("ASCEND_WORK_PATH") != std::string::npos);
}

TEST_CASE("environment: AOE_MAX_INPUT_BYTES, and the working directory resolved once") {
  auto env = aoe::read_environment(aoe::test::fake_env({{"AOE_MAX_INPUT_BYTES", "4096"}}));
  REQUIRE(env.has_value());
  CHECK(env->max_input_bytes == std::uint64_t{4096});
  CHECK(env->work_path() == std::filesystem::current_path());
  for (const std::string bad : {"0", "-1", "1e9", "1125899906842625", "x"}) {
    CAPTURE(bad);
    const auto r = aoe::read_environment(aoe::test::fake_env({{"AOE_MAX_INPUT_BYTES", bad}}));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message.find("AOE_MAX_INPUT_BYTES='" + bad + "'") != std::string::npos);
  }
  // A deleted working directory is an error, not an exception (std::filesystem::current_path
  // throws).
  const auto before = std::filesystem::current_path();
  const auto gone =
      std::filesystem::temp_directory_path() / ("aoe_env_cwd_" + std::to_string(::getpid()));
  std::filesystem::create_directories(gone);
  REQUIRE(::chdir(gone.c_str()) == 0);
  std::filesystem::remove(gone);
  const auto r = aoe::read_environment(aoe::test::fake_env({}));
  REQUIRE(::chdir(before.c_str()) == 0);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("the working directory cannot be resolved") != std::string::npos);
}
