// AOE's conf/aoe.ini: parsed, validated with the file, the line and the key in each message,
// found where CANN installs it, and laid under the environment (docs/cli.md#aoeini).
#include "support/fake_env.hpp"
#include "support/temp_dir.hpp"
#include <aoe/config/aoe_ini.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace config_aoe_ini_test {  // apart from this area's other files in a unity build

namespace {

/// The message of parsing `text`, which must fail.
std::string error_of(const std::string& text) {
  const auto r = aoe::parse_aoe_ini(text, "/opt/conf/aoe.ini");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
  return r.error().message;
}

}  // namespace

TEST_CASE("aoe.ini: AOE's three keys, comments, sections, spaces and CRLF") {
  const auto ini = aoe::parse_aoe_ini(
      "# AOE configuration\r\n[aoe]\r\n  TUNING_PARALLEL_NUM = 4 \r\n; a comment\r\n\r\n"
      "RUN_LOOP=20\r\nWORK_PATH=./\r\n",
      "aoe.ini");
  REQUIRE(ini.has_value());
  CHECK(ini->tuning_parallel_num == 4);
  CHECK(ini->run_loop == 20);
  REQUIRE(ini->work_path.has_value());
  CHECK(ini->work_path->text == "./");
  CHECK(ini->work_path->line == 7);
  CHECK(ini->warnings.empty());
  const auto empty = aoe::parse_aoe_ini("", "aoe.ini");
  REQUIRE(empty.has_value());
  CHECK_FALSE(empty->tuning_parallel_num);
  CHECK_FALSE(empty->run_loop);
  CHECK_FALSE(empty->work_path);
}

TEST_CASE("aoe.ini: a bad value names the file, the line and the key") {
  CHECK(error_of("RUN_LOOP=10\nTUNING_PARALLEL_NUM=0\n") ==
        "/opt/conf/aoe.ini:2: TUNING_PARALLEL_NUM: '0': expected an integer in [1, 64]");
  CHECK(error_of("TUNING_PARALLEL_NUM=65") ==
        "/opt/conf/aoe.ini:1: TUNING_PARALLEL_NUM: '65': expected an integer in [1, 64]");
  CHECK(error_of("\n\nRUN_LOOP=2049") ==
        "/opt/conf/aoe.ini:3: RUN_LOOP: '2049': expected an integer in [1, 2048]");
  CHECK(error_of("RUN_LOOP=ten") ==
        "/opt/conf/aoe.ini:1: RUN_LOOP: 'ten': expected an integer in [1, 2048]");
  CHECK(error_of("RUN_LOOP=") ==
        "/opt/conf/aoe.ini:1: RUN_LOOP: '': expected an integer in [1, 2048]");
  CHECK(error_of("RUN_LOOP=1\nRUN_LOOP=2") ==
        "/opt/conf/aoe.ini:2: RUN_LOOP: given more than once");
  CHECK(error_of("WORK_PATH=") ==
        "/opt/conf/aoe.ini:1: WORK_PATH: expected a directory, found nothing");
  CHECK(error_of("# ok\nRUN_LOOP 10") ==
        "/opt/conf/aoe.ini:2: 'RUN_LOOP 10': expected KEY=VALUE (docs/cli.md#aoeini)");
  CHECK(error_of("=3") == "/opt/conf/aoe.ini:1: expected a key before '='");
}

TEST_CASE("aoe.ini: a key OpenAOE does not read is a warning, not an error") {
  const auto ini = aoe::parse_aoe_ini("TUNING_PARALLEL_NUM=2\nIP=10.0.0.1\n", "aoe.ini");
  REQUIRE(ini.has_value());
  CHECK(ini->tuning_parallel_num == 2);
  REQUIRE(ini->warnings.size() == 1);
  CHECK(ini->warnings[0].starts_with("aoe.ini:2: IP: not a key OpenAOE reads"));
}

TEST_CASE("aoe.ini: looked for under ASCEND_HOME_PATH, then ASCEND_TOOLKIT_HOME") {
  auto env = aoe::read_environment(aoe::test::fake_env({}));
  REQUIRE(env.has_value());
  CHECK(aoe::aoe_ini_candidates(*env).empty());
  env = aoe::read_environment(
      aoe::test::fake_env({{"ASCEND_HOME_PATH", "/c/cann"}, {"ASCEND_TOOLKIT_HOME", "/t"}}));
  REQUIRE(env.has_value());
  const std::vector<std::filesystem::path> expected{"/c/cann/tools/aoe/conf/aoe.ini",
                                                    "/c/cann/conf/aoe.ini",
                                                    "/t/tools/aoe/conf/aoe.ini", "/t/conf/aoe.ini"};
  CHECK(aoe::aoe_ini_candidates(*env) == expected);
  env = aoe::read_environment(
      aoe::test::fake_env({{"ASCEND_HOME_PATH", "/t"}, {"ASCEND_TOOLKIT_HOME", "/t"}}));
  REQUIRE(env.has_value());
  CHECK(aoe::aoe_ini_candidates(*env).size() == 2);  // the same root once
}

TEST_CASE("aoe.ini: environment variable > aoe.ini > default") {
  aoe::test::TempDir dir("ini");
  auto ini = aoe::parse_aoe_ini("TUNING_PARALLEL_NUM=3\nRUN_LOOP=7\nWORK_PATH=results/./here\n",
                                "aoe.ini");
  REQUIRE(ini.has_value());
  const auto getenv = aoe::test::fake_env({});
  auto env = aoe::read_environment(getenv);
  REQUIRE(env.has_value());
  env->working_directory = dir.path();
  CHECK(env->work_path() == dir.path());
  REQUIRE(aoe::apply_aoe_ini(*ini, getenv, *env).has_value());
  CHECK(env->tuning_parallel_num == 3);
  CHECK(env->run_loop == 7);
  CHECK(env->work_path() == dir.path() / "results" / "here");  // relative: from where aoe runs

  const auto set = aoe::test::fake_env({{"TUNING_PARALLEL_NUM", "5"}, {"ASCEND_WORK_PATH", "/w"}});
  auto over = aoe::read_environment(set);
  REQUIRE(over.has_value());
  REQUIRE(aoe::apply_aoe_ini(*ini, set, *over).has_value());
  CHECK(over->tuning_parallel_num == 5);  // the variable wins
  CHECK(over->work_path() == std::filesystem::path("/w"));
  CHECK(over->run_loop == 7);  // no variable of its own

  const auto defaults = aoe::read_environment(getenv);
  REQUIRE(defaults.has_value());
  CHECK(defaults->tuning_parallel_num == 8);
  CHECK_FALSE(defaults->run_loop);
}

TEST_CASE("aoe.ini: a WORK_PATH that names a file is an error naming its line") {
  aoe::test::TempDir dir("ini_file");
  const auto file = aoe::test::write_text(dir.path() / "not_a_dir", "x");
  auto ini = aoe::parse_aoe_ini("RUN_LOOP=3\nWORK_PATH=" + file.string() + "\n", "conf/aoe.ini");
  REQUIRE(ini.has_value());
  auto env = aoe::read_environment(aoe::test::fake_env({}));
  REQUIRE(env.has_value());
  const auto r = aoe::apply_aoe_ini(*ini, aoe::test::fake_env({}), *env);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message ==
        "conf/aoe.ini:2: WORK_PATH: '" + file.string() + "': expected a directory, found a file");
}

}  // namespace config_aoe_ini_test
