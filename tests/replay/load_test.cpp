// aoe::replay::load: Kernel Tuner caches (plain, gzip, interrupted), T4 results, and errors.
#include "replay_cache.hpp"
#include "support/temp_dir.hpp"
#include <aoe/measure/replay/load.hpp>

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

namespace {

using aoe::test::TempDir;

bool mentions(const aoe::ErrorInfo& e, const std::string& what) {
  return e.message.find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("a Kernel Tuner cache rebuilds its space; absent configurations are invalid") {
  TempDir dir("replay_load");
  const auto path =
      dir.write("tiny.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries()));
  auto r = aoe::replay::load(path);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().what()));
  CHECK(r->name() == "tiny");
  CHECK(r->device == "Tiny GPU");
  const aoe::Space& space = r->space();
  REQUIRE(space.dimensions() == 3);
  CHECK(space.parameter(0).name() == "a");
  CHECK(space.parameter(2).name() == "c");
  CHECK(space.raw_size() == 12);
  CHECK(space.size().valid == 9);
  CHECK(r->configurations() == 9);
  CHECK(r->valid_configurations() == 7);
  CHECK(r->optimum() == doctest::Approx(1e-3));
  // a=4, b=1 is absent: not part of the space.
  CHECK_FALSE(space.is_valid({2, 1, 0}));
  CHECK_FALSE(space.is_valid({0, 0, 1}));
  CHECK(space.is_valid({1, 1, 0}));
  const auto* best = r->find({1, 1, 0});
  REQUIRE(best != nullptr);
  CHECK(best->status == aoe::Status::correct);
  CHECK(best->value == doctest::Approx(1e-3));
  CHECK(best->compile_seconds == doctest::Approx(0.1));
  REQUIRE(best->benchmark_seconds.has_value());
  CHECK(*best->benchmark_seconds == doctest::Approx(0.01));
  CHECK(best->samples.size() == 2);
  CHECK(r->optimum_configuration() == aoe::Configuration{1, 1, 0});
  // Markers: compile failure and runtime failure.
  CHECK(r->find({1, 0, 0})->status == aoe::Status::compile);
  CHECK(r->find({1, 1, 1})->status == aoe::Status::runtime);
  CHECK(r->find({1, 1, 1})->marker == "RuntimeFailedConfig");
  CHECK(aoe::replay::kernel_tuner_status("InvalidConfig") == aoe::Status::compile);
}

TEST_CASE("a gzip-compressed cache reads as the plain one") {
  TempDir dir("replay_gzip");
  const auto text = aoe::test::kernel_tuner_cache(aoe::test::tiny_entries());
  const auto gz = dir.file("tiny.json.gz");
  REQUIRE(aoe::test::write_gzip(gz, text));
  auto r = aoe::replay::load(gz);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().what()));
  CHECK(r->name() == "tiny");
  CHECK(r->configurations() == 9);
  CHECK(r->optimum() == doctest::Approx(1e-3));
}

TEST_CASE("a cache interrupted after an entry is read as Kernel Tuner reads it") {
  TempDir dir("replay_interrupted");
  auto entries = aoe::test::tiny_entries();
  entries.resize(4);
  const auto path = dir.write("cut.json", aoe::test::kernel_tuner_cache(entries, false));
  auto r = aoe::replay::load(path);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().what()));
  CHECK(r->configurations() == 4);
}

TEST_CASE("corrupt and truncated files are errors that name the file and the place") {
  TempDir dir("replay_corrupt");
  const auto text = aoe::test::kernel_tuner_cache(aoe::test::tiny_entries());

  SUBCASE("missing file") {
    auto r = aoe::replay::load(dir.file("nope.json"));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::not_found));
    CHECK(mentions(r.error(), "nope.json"));
  }
  SUBCASE("cut inside an entry") {
    const auto cut = text.substr(0, text.find("\"times\"", text.size() / 2) + 12);
    const auto path = dir.write("cut.json", cut);
    auto r = aoe::replay::load(path);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::parse_error));
    CHECK(mentions(r.error(), "cut.json"));
    CHECK(mentions(r.error(), "byte"));
  }
  SUBCASE("truncated gzip stream") {
    const auto gz = dir.file("full.json.gz");
    REQUIRE(aoe::test::write_gzip(gz, text));
    std::string bytes;
    {
      std::ifstream in(gz, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const auto path = dir.write("short.json.gz", bytes.substr(0, bytes.size() / 2));
    auto r = aoe::replay::load(path);
    REQUIRE_FALSE(r.has_value());
    CHECK(mentions(r.error(), "short.json.gz"));
  }
  SUBCASE("not JSON") {
    auto r = aoe::replay::load(dir.write("garbage.json", "this is not json"));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::parse_error));
  }
  SUBCASE("neither a cache nor T4") {
    auto r = aoe::replay::load(dir.write("other.json", "{\"hello\": 1}"));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::schema_error));
  }
  SUBCASE("a value that is not a parameter level, with its JSON pointer") {
    std::string bad = text;
    bad.replace(bad.find("\"a\": 2,"), 7, "\"a\": 3,");
    auto r = aoe::replay::load(dir.write("bad.json", bad));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::schema_error));
    CHECK(mentions(r.error(), "bad.json"));
    CHECK(mentions(r.error(), "/cache/2,0,x/a"));
  }
  SUBCASE("a time that is neither a number nor a marker") {
    std::string bad = text;
    const auto at = bad.find("\"time\": 5");
    bad.replace(at, 9, "\"time\": null");
    auto r = aoe::replay::load(dir.write("null.json", bad));
    REQUIRE_FALSE(r.has_value());
    CHECK(mentions(r.error(), "/cache/1,0,x/time"));
  }
  SUBCASE("missing tune_params") {
    auto r = aoe::replay::load(dir.write("np.json", "{\"cache\": {}}"));
    REQUIRE_FALSE(r.has_value());
    CHECK(mentions(r.error(), "/tune_params"));
  }
  SUBCASE("a name listed twice in tune_params_keys (fuzzing found it: an uncaught exception)") {
    std::string bad = text;
    bad.replace(bad.find("[\"a\", \"b\", \"c\"]"), 15, "[\"a\", \"b\", \"a\"]");
    auto r = aoe::replay::load(dir.write("twice.json", bad));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::schema_error));
    CHECK(mentions(r.error(),
                   "twice.json: /tune_params_keys/2: expected a parameter name not "
                   "listed before ('a' is listed twice)"));
  }
  SUBCASE("a key given twice, a number out of range, a directory") {
    std::string dup = text;
    dup.replace(dup.find("\"objective\": \"time\""), 19,
                "\"objective\": \"time\", \"objective\": \"x\"");
    CHECK(mentions(aoe::replay::load(dir.write("dup.json", dup)).error(),
                   "duplicate key \"objective\""));
    std::string inf = text;
    inf.replace(inf.find("\"problem_size\": 64"), 18, "\"problem_size\": 1e999");
    CHECK(mentions(aoe::replay::load(dir.write("inf.json", inf)).error(),
                   "inf.json: /problem_size: a number out of range"));
    CHECK(mentions(aoe::replay::load(dir.path().string()).error(), "is a directory"));
  }
}

TEST_CASE("T4 results load; constraint violations are not part of the space") {
  TempDir dir("replay_t4");
  const std::string t4 = R"({"schema_version": "1.0.0",
    "metadata": {"timeunit": "milliseconds", "device": "Tiny"},
    "results": [
      {"configuration": {"x": 2, "y": "u"}, "invalidity": "correct", "correctness": 1,
       "objectives": ["time"], "times": {"compilation_time": 50, "runtimes": [2.0, 2.2]},
       "measurements": [{"name": "time", "value": 2.1, "unit": "ms"}]},
      {"configuration": {"x": 1, "y": "u"}, "invalidity": "correct", "correctness": 1,
       "times": {"runtimes": [3.0, 5.0]}},
      {"configuration": {"x": 1, "y": "v"}, "invalidity": "compile", "correctness": 0,
       "times": {"compilation_time": 10}},
      {"configuration": {"x": 2, "y": "v"}, "invalidity": "constraints", "correctness": 0,
       "times": {}}
    ]})";
  auto r = aoe::replay::load(dir.write("t4.json", t4));
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().what()));
  const auto& space = r->space();
  REQUIRE(space.dimensions() == 2);
  CHECK(space.parameter(0).level(0) == aoe::Value(1));  // numbers sorted
  CHECK(r->configurations() == 3);
  CHECK(r->valid_configurations() == 2);
  CHECK_FALSE(space.is_valid({1, 1}));
  CHECK(r->optimum() == doctest::Approx(2.1e-3));
  CHECK(r->find({0, 0})->value == doctest::Approx(4e-3));  // mean of the runtimes
  CHECK(r->find({0, 1})->status == aoe::Status::compile);
  CHECK(r->device == "Tiny");

  std::string bad = t4;
  bad.replace(bad.find("\"compile\""), 9, "\"broken\"");
  auto e = aoe::replay::load(dir.write("t4bad.json", bad));
  REQUIRE_FALSE(e.has_value());
  CHECK(mentions(e.error(), "/results/2/invalidity"));
}
