// Built-in SoC descriptions and the JSON loader.
#include "aoe/measure/simulator/soc.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace simulator_soc_test {  // apart from this area's other files in a unity build

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/aoe_simulator_test_" + name + ".json";
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("every built-in SoC loads and has the platform_config figures") {
  const auto names = aoe::sim::Soc::builtin_names();
  CHECK(names.size() == 6);
  for (const auto& name : names) {
    const auto soc = aoe::sim::Soc::builtin(name);
    REQUIRE(soc.has_value());
    CHECK(soc->name == name);
    CHECK(soc->cube_cores > 0);
    CHECK(soc->l0a_bytes == 64 * 1024);
  }
  const auto a = aoe::sim::Soc::builtin("Ascend910A").value();
  CHECK(a.cube_cores == 32);
  CHECK_FALSE(a.split);
  CHECK_FALSE(a.mte2_nd2nz);
  CHECK(a.peak_flops_fp16() == doctest::Approx(256e12));
  const auto b1 = aoe::sim::Soc::builtin("Ascend910B1").value();
  CHECK(b1.cube_cores == 24);
  CHECK(b1.vector_cores == 48);
  CHECK(b1.split);
  CHECK(b1.mte2_nd2nz);
  CHECK(b1.l0c_bytes == 128 * 1024);
  CHECK(b1.peak_flops_fp16() == doctest::Approx(24 * 4096 * 2 * 1.85e9));
  const auto b4 = aoe::sim::Soc::builtin("Ascend910B4").value();
  CHECK(b4.cube_cores == 20);
  CHECK(b4.frequency_ghz == doctest::Approx(1.5));
  const auto p = aoe::sim::Soc::builtin("Ascend310P3").value();
  CHECK(p.cube_cores == 8);
  CHECK(p.peak_flops_fp16() == doctest::Approx(8 * 4096 * 2 * 1.06e9));
}

TEST_CASE("an unknown SoC name is an error that lists the valid names") {
  const auto r = aoe::sim::Soc::builtin("Ascend999");
  REQUIRE(r.has_error());
  CHECK(r.error().code == aoe::make_error_code(aoe::Errc::not_found));
  CHECK(r.error().message.find("Ascend999") != std::string::npos);
  CHECK(r.error().message.find("Ascend910B3") != std::string::npos);
  CHECK(r.error().message.find("Ascend310P3") != std::string::npos);
}

TEST_CASE("a SoC description loads from JSON over a built-in base") {
  const auto path = write_temp(
      "ok", R"({"base": "Ascend910B2", "name": "calibrated", "launch_overhead_seconds": 4e-6,
               "cube_cores": 22, "mte2_nd2nz": false})");
  const auto soc = aoe::sim::Soc::from_json_file(path);
  REQUIRE(soc.has_value());
  CHECK(soc->name == "calibrated");
  CHECK(soc->cube_cores == 22);
  CHECK(soc->launch_overhead_seconds == doctest::Approx(4e-6));
  CHECK_FALSE(soc->mte2_nd2nz);
  CHECK(soc->frequency_ghz == doctest::Approx(1.8));  // from the base
  std::remove(path.c_str());
}

TEST_CASE("JSON errors name the file and the JSON pointer") {
  SUBCASE("wrong type") {
    const auto path = write_temp("type", R"({"cube_cores": "many"})");
    const auto r = aoe::sim::Soc::from_json_file(path);
    REQUIRE(r.has_error());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::schema_error));
    CHECK(r.error().message.find(path) != std::string::npos);
    CHECK(r.error().message.find("/cube_cores") != std::string::npos);
    std::remove(path.c_str());
  }
  SUBCASE("unknown field") {
    const auto path = write_temp("field", R"({"cube_corez": 3})");
    const auto r = aoe::sim::Soc::from_json_file(path);
    REQUIRE(r.has_error());
    CHECK(r.error().message.find("/cube_corez") != std::string::npos);
    std::remove(path.c_str());
  }
  SUBCASE("unknown base") {
    const auto path = write_temp("base", R"({"base": "Ascend911"})");
    const auto r = aoe::sim::Soc::from_json_file(path);
    REQUIRE(r.has_error());
    CHECK(r.error().message.find("/base") != std::string::npos);
    std::remove(path.c_str());
  }
  SUBCASE("not JSON") {
    const auto path = write_temp("syntax", "{cube_cores: ");
    const auto r = aoe::sim::Soc::from_json_file(path);
    REQUIRE(r.has_error());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::parse_error));
    CHECK(r.error().message.find(path) != std::string::npos);
    std::remove(path.c_str());
  }
  SUBCASE("missing file") {
    const auto r = aoe::sim::Soc::from_json_file("/nonexistent/soc.json");
    REQUIRE(r.has_error());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::io_error));
    CHECK(r.error().message.find("/nonexistent/soc.json") != std::string::npos);
  }
}

}  // namespace simulator_soc_test
