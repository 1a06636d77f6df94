// `aoe --framework=5`: the three jobs on the real ONNX models of ../shared/models (PaddleOCR's
// detector and classifier, exported by Paddle2ONNX), and the exit codes of bad ONNX input.
#include "cli.hpp"
#include "model_input.hpp"
#include "run_aoe.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#if defined(AOE_WITH_ONNX)
#include "onnx/onnx_model_builder.hpp"
#endif

namespace tools_aoe_onnx_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

using Run = aoe::test::AoeRun;

/// `aoe` with a bank and a work directory inside `dir`.
Run run_aoe(const std::vector<std::string>& args, const aoe::test::TempDir& dir) {
  fs::create_directories(dir.path() / "bank");
  fs::create_directories(dir.path() / "work");
  return aoe::test::run_aoe(
      args, {{"TUNE_BANK_PATH", dir.file("bank")}, {"ASCEND_WORK_PATH", dir.file("work")}});
}

fs::path shared_model(const std::string& file) {
  const fs::path dir = std::getenv("AOE_SHARED_MODELS") != nullptr
                           ? fs::path(std::getenv("AOE_SHARED_MODELS"))
                           : fs::path(AOE_TESTS_SOURCE_DIR) / ".." / ".." / "shared" / "models";
  return dir / file;
}

/// The newest result file of `job` in the work directory, parsed.
boost::json::object result_file(const aoe::test::TempDir& dir, const std::string& job) {
  fs::path newest;
  for (const auto& e : fs::directory_iterator(dir.path() / "work")) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("aoe_result_" + job + "_") && (newest.empty() || e.path() > newest)) {
      newest = e.path();
    }
  }
  REQUIRE_FALSE(newest.empty());
  std::ifstream in(newest);
  std::stringstream ss;
  ss << in.rdbuf();
  const auto root = boost::json::parse(ss.str()).as_object();
  REQUIRE(root.size() == 1);
  return root.begin()->value().as_array().at(1).as_object();
}

struct RealModel {
  const char* file;
  const char* shape;
};
constexpr RealModel real_models[] = {{"ch_PP-OCRv4_det_infer.onnx", "x:1,3,640,640"},
                                     {"ch_ppocr_mobile_v2.0_cls_infer.onnx", "x:1,3,48,192"}};

/// Whether this build reads ONNX and the real models are beside this clone; skips the test
/// case when either is missing.
bool real_models_available() {
  if (!aoe_tool::onnx_support()) {
    aoe::test::skip("this build has no ONNX import");
    return false;
  }
  for (const auto& m : real_models) {
    if (!fs::exists(shared_model(m.file))) {
      aoe::test::skip("the shared models are not beside this clone (" +
                      shared_model(m.file).string() + "; set AOE_SHARED_MODELS)");
      return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("aoe --framework=5: OPAT on the real ONNX models, then every operator a bank hit") {
  if (!real_models_available()) return;
  for (const auto& m : real_models) {
    const fs::path model = shared_model(m.file);
    INFO(m.file);
    aoe::test::TempDir dir("onnx_opat");
    const std::vector<std::string> args{"--framework=5", "--model=" + model.string(),
                                        std::string("--input_shape=") + m.shape, "--job_type=2"};
    const Run first = run_aoe(args, dir);
    INFO(first.out << first.err);
    REQUIRE(first.code == 0);
    const auto opat = result_file(dir, "opat").at("OPAT").as_object();
    CHECK(opat.at("opat_tuning_result").as_string() == "tuning successful");
    const double before = opat.at("model_baseline_performance(ms)").to_number<double>();
    const double after = opat.at("model_result_performance(ms)").to_number<double>();
    CHECK(after < before);
    const auto& summary = opat.at("repo_summary").as_object();
    CHECK(summary.at("total_num").as_int64() > 100);
    CHECK(opat.if_contains("tuning_failed_operators") == nullptr);
    CHECK(first.out.find("0 failed") != std::string::npos);

    const Run second = run_aoe(args, dir);
    REQUIRE(second.code == 0);
    const auto again =
        result_file(dir, "opat").at("OPAT").as_object().at("repo_summary").as_object();
    CHECK(again.at("repo_hit_num").as_int64() == again.at("total_num").as_int64());
    CHECK(again.at("total_num").as_int64() == summary.at("total_num").as_int64());
  }
}

TEST_CASE("aoe --framework=5: SGAT and GDAT on the real ONNX models") {
  if (!real_models_available()) return;
  for (const auto& m : real_models) {
    const fs::path model = shared_model(m.file);
    INFO(m.file);
    aoe::test::TempDir dir("onnx_jobs");
    for (const char* job : {"1", "4"}) {
      INFO("job_type " << job);
      const Run r =
          run_aoe({"--framework=5", "--model=" + model.string(),
                   std::string("--input_shape=") + m.shape, std::string("--job_type=") + job},
                  dir);
      INFO(r.out << r.err);
      REQUIRE(r.code == 0);
      const std::string kind = std::string(job) == "1" ? "sgat" : "gdat";
      const auto result = result_file(dir, kind);
      const auto& section = result.at(kind == "sgat" ? "SGAT" : "GDAT").as_object();
      const std::string improvement(section.at("model_performance_improvement").as_string());
      INFO(improvement);
      CHECK(std::stod(improvement) > 0);
    }
  }
}

TEST_CASE("aoe --framework=5: bad ONNX input gets its exit code and a named message") {
  aoe::test::TempDir dir("onnx_bad");
  const fs::path detector = shared_model("ch_PP-OCRv4_det_infer.onnx");
  const std::string json = dir.write("m.json", R"({"format_version": 1, "name": "m"})");
  const std::string truncated = dir.write("cut.onnx", std::string("\x08\x08\x12\x05", 4));

  SUBCASE("--framework=0, 1, 3 are AOE's other frameworks: exit 2") {
    for (const char* f : {"0", "1", "3"}) {
      const Run r =
          run_aoe({std::string("--framework=") + f, "--model=" + json, "--job_type=2"}, dir);
      CHECK(r.code == aoe_tool::exit_usage);
      CHECK(r.err.find("--framework=5") != std::string::npos);
    }
  }
  SUBCASE("a malformed --input_shape: exit 2") {
    const Run r = run_aoe({"--model=" + json, "--input_shape=x:1,,3", "--job_type=2"}, dir);
    CHECK(r.code == aoe_tool::exit_usage);
    CHECK(r.err.find("--input_shape") != std::string::npos);
  }
  if (!aoe_tool::onnx_support()) {
    const Run r = run_aoe({"--framework=5", "--model=" + truncated, "--job_type=2"}, dir);
    CHECK(r.code == aoe_tool::exit_usage);
    CHECK(r.err.find("libonnx-dev") != std::string::npos);
    return;
  }
  SUBCASE("a JSON file with --framework=5: exit 3 naming the file") {
    const Run r = run_aoe({"--framework=5", "--model=" + json, "--job_type=2"}, dir);
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(r.err.find(json) != std::string::npos);
    CHECK(r.err.find("JSON") != std::string::npos);
  }
  SUBCASE("a truncated protobuf, decided by content: exit 3") {
    const Run r = run_aoe({"--model=" + truncated, "--job_type=2"}, dir);
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(r.err.find(truncated) != std::string::npos);
  }
  SUBCASE("a directory as --model: exit 3") {
    const Run r = run_aoe({"--framework=5", "--model=" + dir.file("work"), "--job_type=2"}, dir);
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(r.err.find("not a regular file") != std::string::npos);
  }
  if (!fs::exists(detector)) {
    aoe::test::skip("the shared models are not beside this clone (" + detector.string() + ")");
    return;
  }
  SUBCASE("a dynamic dimension left: exit 3 naming the input, the dimension and the flag") {
    for (const char* job : {"1", "2", "4"}) {
      const Run r = run_aoe(
          {"--framework=5", "--model=" + detector.string(), std::string("--job_type=") + job}, dir);
      CHECK(r.code == aoe_tool::exit_input);
      CHECK(r.err.find("input 'x', dimension 0") != std::string::npos);
      CHECK(r.err.find("--input_shape") != std::string::npos);
    }
  }
  SUBCASE("--input_shape naming no input: exit 2 listing the inputs") {
    const Run r = run_aoe({"--framework=5", "--model=" + detector.string(),
                           "--input_shape=image:1,3,64,64", "--job_type=2"},
                          dir);
    CHECK(r.code == aoe_tool::exit_usage);
    CHECK(r.err.find("inputs are: x") != std::string::npos);
  }
  SUBCASE("--input_shape with a JSON graph: exit 2") {
    const Run r = run_aoe({"--model=" + json, "--input_shape=x:1", "--job_type=2"}, dir);
    CHECK(r.code == aoe_tool::exit_usage);
  }
}

#if defined(AOE_WITH_ONNX)
TEST_CASE("aoe --framework=5: an operator the simulator cannot price is listed, the job goes on") {
  aoe::test::TempDir dir("onnx_unpriced");
  aoe::test::OnnxModel m(13);
  m.input("x", {1, 16, 32, 32}).weight("w", {16, 16, 3, 3}).weight("s", {16}).weight("b", {16});
  auto& conv = m.node("Conv", {"x", "w"}, {"c"}, "conv");
  aoe::test::set_ints(conv, "pads", {1, 1, 1, 1});
  m.node("InstanceNormalization", {"c", "s", "b"}, {"n"}, "inorm");
  m.node("Relu", {"n"}, {"y"}, "relu");
  m.output("y");
  const std::string model = dir.write("net.onnx", m.bytes());
  const Run r = run_aoe({"--model=" + model, "--job_type=2"}, dir);
  INFO(r.out << r.err);
  CHECK(r.code == aoe_tool::exit_ops_failed);
  CHECK(r.out.find("inorm (InstanceNorm): failed") != std::string::npos);
  const auto opat = result_file(dir, "opat").at("OPAT").as_object();
  CHECK(opat.at("opat_tuning_result").as_string() == "tuning failed");
  const auto& failed = opat.at("tuning_failed_operators").as_array();
  REQUIRE(failed.size() == 1);
  CHECK(boost::json::serialize(failed[0]).find("inorm") != std::string::npos);
  CHECK(opat.at("repo_summary").as_object().at("total_num").as_int64() == 2);  // the tuned two
}
#endif

}  // namespace tools_aoe_onnx_test
