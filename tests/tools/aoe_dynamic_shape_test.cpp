// ATC's shape profiles in `aoe` (docs/cli.md#shape-profiles): --input_shape with -1 and
// --dynamic_batch_size, --dynamic_image_size or --dynamic_dims, every profile tuned by OPAT in
// one job, in-process through aoe_tool::run on ONNX models built here.
#include "cli.hpp"
#include "run_aoe.hpp"
#include "support/opat_results.hpp"
#include "support/small_model.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#if defined(AOE_WITH_ONNX)
#include "onnx/onnx_model_builder.hpp"
#endif

namespace tools_aoe_dynamic_shape_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

using aoe::test::run_aoe;
using aoe::test::TempDir;

/// The environment of a job in `dir`: its bank and work directory.
std::map<std::string, std::string> job_env(const TempDir& dir) {
  fs::create_directories(dir.path() / "bank");
  return {{"TUNE_BANK_PATH", dir.file("bank")}, {"ASCEND_WORK_PATH", dir.file("work")}};
}

/// The report entries of the newest result file of the job in `dir`.
std::vector<aoe::test::ReportEntry> newest_entries(const TempDir& dir) {
  const auto files = aoe::test::opat_result_files(dir.path() / "work");
  REQUIRE_FALSE(files.empty());
  return aoe::test::report_entries(files.back());
}

#if defined(AOE_WITH_ONNX)
/// net.onnx in `dir`: a Relu on x [N, 64] (N dynamic) and a MatMul of the static z [32, 64] by a
/// weight [64, 128], which no profile changes.
std::string batch_model(const TempDir& dir) {
  aoe::test::OnnxModel m(13);
  m.input("x", {std::string("N"), std::int64_t{64}}).input("z", {32, 64}).weight("w", {64, 128});
  m.node("Relu", {"x"}, {"a"}, "act");
  m.node("MatMul", {"z", "w"}, {"b"}, "fc");
  m.output("a").output("b");
  return dir.write("net.onnx", m.bytes());
}
#endif

}  // namespace

#if defined(AOE_WITH_ONNX)
TEST_CASE("aoe --dynamic_batch_size: each batch size a model of its own, one job, one bank") {
  TempDir dir("dynamic_batch");
  const std::string model = batch_model(dir);
  const std::vector<std::string> args{"--model=" + model, "--input_shape=x:-1,64;z:32,64",
                                      "--dynamic_batch_size=2,4", "--job_type=2", "--report=off"};
  const auto env = job_env(dir);
  const auto r = run_aoe(args, env);
  INFO(r.out << r.err);
  REQUIRE(r.code == aoe_tool::exit_success);
  CHECK(r.out.find("aoe: --dynamic_batch_size 2,4: 2 profiles of " + model + ", one bank\n") !=
        std::string::npos);
  CHECK(r.out.find("net_batch4 process finished. Performance improved by ") != std::string::npos);
  REQUIRE(aoe::test::opat_result_files(dir.path() / "work").size() == 1);  // one for the job
  const auto entries = newest_entries(dir);
  CHECK(aoe::test::entry_names(entries) == std::vector<std::string>{"net_batch2", "net_batch4"});
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].summary("total_num") == 2);
  CHECK(entries[0].summary("repo_hit_num") == 0);
  CHECK(entries[1].summary("total_num") == 2);
  CHECK(entries[1].summary("repo_hit_num") == 1);  // the MatMul of z: the same shape

  // Each profile's shapes have entries of their own; the shared MatMul has one.
  const auto keys = aoe::test::schedule_bank_keys(dir.path() / "bank");
  CHECK(keys.size() == 3);
  CHECK(aoe::test::has_key(keys, "Relu;in=[2,64]:float32:ND;out=[2,64]:float32:ND;"));
  CHECK(aoe::test::has_key(keys, "Relu;in=[4,64]:float32:ND;out=[4,64]:float32:ND;"));
  CHECK(aoe::test::has_key(keys, "MatMul;in=[32,64]:float32:ND,[64,128]:float32:ND;"));

  // A later job with a profile tuned before: that profile is all hits, the new one is not.
  auto later = args;
  later[2] = "--dynamic_batch_size=4,8";
  const auto again = run_aoe(later, env);
  REQUIRE(again.code == aoe_tool::exit_success);
  const auto second = newest_entries(dir);
  REQUIRE(second.size() == 2);
  CHECK(second[0].name == "net_batch4");
  CHECK(second[0].summary("repo_hit_num") == 2);
  CHECK(second[1].summary("repo_hit_num") == 1);
  CHECK(aoe::test::has_key(aoe::test::schedule_bank_keys(dir.path() / "bank"),
                           "Relu;in=[8,64]:float32:ND;"));
}

TEST_CASE("aoe --dynamic_image_size and --dynamic_dims: the H and W, and every -1 in order") {
  TempDir dir("dynamic_image_dims");
  aoe::test::OnnxModel m(13);
  m.input("img", {std::int64_t{1}, std::int64_t{8}, std::string("H"), std::string("W")})
      .input("seq", {std::int64_t{1}, std::string("T")})
      .input("mask", {std::string("T"), std::string("T")});
  m.node("Relu", {"img"}, {"a"}, "act_img");
  m.node("Relu", {"seq"}, {"b"}, "act_seq");
  m.node("Sigmoid", {"mask"}, {"c"}, "act_mask");
  m.output("a").output("b").output("c");
  const std::string model = dir.write("net.onnx", m.bytes());
  const auto env = job_env(dir);

  auto r = run_aoe({"--model=" + model, "--input_shape=img:1,8,-1,-1;seq:1,16;mask:16,16",
                    "--dynamic_image_size=16,16;32,48", "-j2", "--report=off"},
                   env);
  INFO(r.out << r.err);
  REQUIRE(r.code == aoe_tool::exit_success);
  auto entries = newest_entries(dir);
  CHECK(aoe::test::entry_names(entries) == std::vector<std::string>{"net_hw16x16", "net_hw32x48"});
  auto keys = aoe::test::schedule_bank_keys(dir.path() / "bank");
  CHECK(aoe::test::has_key(keys, "Relu;in=[1,8,16,16]:float32:NCHW;"));
  CHECK(aoe::test::has_key(keys, "Relu;in=[1,8,32,48]:float32:NCHW;"));
  REQUIRE(entries.size() == 2);
  CHECK(entries[1].summary("repo_hit_num") == 2);  // seq and mask: the same in both

  r = run_aoe({"--model=" + model, "--input_shape=img:1,8,4,4;seq:1,-1;mask:-1,-1",
               "--dynamic_dims=8,8,8;24,24,24", "-j2", "--report=off"},
              env);
  REQUIRE(r.code == aoe_tool::exit_success);
  entries = newest_entries(dir);
  CHECK(aoe::test::entry_names(entries) ==
        std::vector<std::string>{"net_dims8_8_8", "net_dims24_24_24"});
  keys = aoe::test::schedule_bank_keys(dir.path() / "bank");
  CHECK(aoe::test::has_key(keys, "Relu;in=[1,8]:float32:ND;"));
  CHECK(aoe::test::has_key(keys, "Sigmoid;in=[8,8]:float32:ND;"));
  CHECK(aoe::test::has_key(keys, "Relu;in=[1,24]:float32:ND;"));
  CHECK(aoe::test::has_key(keys, "Sigmoid;in=[24,24]:float32:ND;"));
}

TEST_CASE("aoe: a profile the model does not take is exit 2 before anything is tuned") {
  TempDir dir("dynamic_model_refuses");
  const std::string model = batch_model(dir);  // z is [32, 64] in the model
  const auto r = run_aoe({"--model=" + model, "--input_shape=x:-1,64;z:-1,64",
                          "--dynamic_batch_size=32,16", "-j2", "--report=off"},
                         job_env(dir));
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find("net.onnx") != std::string::npos);
  CHECK(aoe::test::opat_result_files(dir.path() / "work").empty());  // not even the first
}
#endif

TEST_CASE("aoe: shape profile flags that do not fit are exit 2 naming the flag and the item") {
  TempDir dir("dynamic_bad");
  const std::string onnx = dir.write("net.onnx", "not read: the flags are checked first");
  const std::string m = "--model=" + onnx;
  const std::map<std::vector<std::string>, std::string> cases{
      {{m, "--input_shape=x:-1,64"},
       "--input_shape=\"x:-1,64\": input 'x', dimension 0: -1 (a dynamic dimension) is valid only "
       "with --dynamic_batch_size, --dynamic_image_size or --dynamic_dims"},
      {{m, "--input_shape=x:-1,64", "--dynamic_batch_size=1,2", "--dynamic_dims=1;2"},
       "--dynamic_batch_size, --dynamic_dims: one of --dynamic_batch_size, --dynamic_image_size "
       "and --dynamic_dims at most"},
      {{m, "--dynamic_batch_size=1,2"}, "--dynamic_batch_size: needs --input_shape, with -1"},
      {{m, "--input_shape=x:4,64", "--dynamic_batch_size=1,2"},
       "--dynamic_batch_size: --input_shape=\"x:4,64\" has no -1"},
      {{m, "--input_shape=x:4,-1", "--dynamic_batch_size=1,2"},
       "--dynamic_batch_size: --input_shape=\"x:4,-1\": input 'x': --dynamic_batch_size fills N, "
       "the first dimension, and only it"},
      {{m, "--input_shape=x:-1,64", "--dynamic_batch_size=1,0"},
       "--dynamic_batch_size=\"1,0\": profile 2 ('0'): '0' is not an integer in [1, 2048]"},
      {{m, "--input_shape=x:-1,64", "--dynamic_batch_size=1,2049"},
       "--dynamic_batch_size=\"1,2049\": profile 2 ('2049'): '2049' is not an integer in [1, "
       "2048]"},
      {{m, "--input_shape=x:-1,64", "--dynamic_batch_size=1,-4"},
       "--dynamic_batch_size=\"1,-4\": profile 2 ('-4'): '-4' is not an integer in [1, 2048]"},
      {{m, "--input_shape=x:-1,64", "--dynamic_batch_size=1,2,1"},
       "--dynamic_batch_size=\"1,2,1\": profile 3 ('1') repeats profile 1"},
      {{m, "--input_shape=x:-1,64", "--dynamic_batch_size=8"},
       "--dynamic_batch_size=\"8\": 1 profile; ATC takes 2 to 100"},
      {{m, "--input_shape=x:-1,64", "--dynamic_batch_size=1,,2"},
       "--dynamic_batch_size=\"1,,2\": profile 2 (''): '' is not an integer"},
      {{m, "--input_shape=x:1,3,-1,-1", "--dynamic_image_size=16;32,32"},
       "--dynamic_image_size=\"16;32,32\": profile 1 ('16'): 1 size; expected 2 (h,w)"},
      {{m, "--input_shape=x:1,-1,-1,3", "--dynamic_image_size=16,16;32,32"},
       "--dynamic_image_size: --input_shape=\"x:1,-1,-1,3\": input 'x': --dynamic_image_size "
       "fills H and W, dimensions 2 and 3 of a 4-D NCHW input, both -1"},
      {{m, "--input_shape=x:1,3,-1,-1", "--dynamic_image_size=16,16;16,16"},
       "--dynamic_image_size=\"16,16;16,16\": profile 2 ('16,16') repeats profile 1"},
      {{m, "--input_shape=x:1,-1;y:-1,-1", "--dynamic_dims=4,5;6,7"},
       "--dynamic_dims=\"4,5;6,7\": profile 1 ('4,5'): 2 sizes; expected 3, one per -1"},
      {{m, "--input_shape=x:-1,-1,-1;y:-1,-1", "--dynamic_dims=1,1,1,1,1;2,2,2,2,2"},
       "--dynamic_dims: --input_shape=\"x:-1,-1,-1;y:-1,-1\": 5 -1 dimensions; ATC fills at most "
       "4 per profile"},
      {{m, "--input_shape=x:1,-1", "--dynamic_dims=4;0"},
       "--dynamic_dims=\"4;0\": profile 2 ('0'): '0' is not a positive integer"},
      {{"--model_path=" + dir.path().string(), "--input_shape=x:-1,64", "--dynamic_batch_size=1,2"},
       "--dynamic_batch_size: with --model (one model), not --model_path"},
      {{m, "--input_shape=x:-1,64", "--dynamic_batch_size=1,2", "--output=t.json"},
       "--dynamic_batch_size: each profile's tuned model goes to the workspace"}};
  for (const auto& [args, message] : cases) {
    INFO(args.back());
    auto with_job = args;
    with_job.emplace_back("--job_type=2");
    const auto r = run_aoe(with_job, job_env(dir));
    CHECK(r.code == aoe_tool::exit_usage);
    CHECK(r.err.starts_with("aoe: " + message));
  }
  std::string many = "1";
  for (int b = 2; b <= 101; ++b) many += "," + std::to_string(b);
  auto r = run_aoe({m, "--input_shape=x:-1,64", "--dynamic_batch_size=" + many, "-j2"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find(": 101 profiles; ATC takes 2 to 100") != std::string::npos);
  CHECK(aoe::test::opat_result_files(dir.path() / "work").empty());
}

TEST_CASE("aoe: shape profiles are OPAT's; SGAT, GDAT and JSON graphs refuse them, exit 2") {
  TempDir dir("dynamic_jobs");
  const std::string json = dir.write("small.json", aoe::test::small_model);
  for (const char* job : {"--job_type=1", "--job_type=4"}) {
    INFO(job);
    const auto r =
        run_aoe({"--model=" + json, "--input_shape=x:-1,256", "--dynamic_batch_size=1,2", job},
                job_env(dir));
    CHECK(r.code == aoe_tool::exit_usage);
    CHECK(
        r.err.starts_with("aoe: --dynamic_batch_size: operator tuning (--job_type=2) only: "
                          "OPAT tunes each profile as a model of its own"));
  }
  // A JSON graph has static shapes, as with --input_shape alone.
  const auto r = run_aoe(
      {"--model=" + json, "--input_shape=x:-1,256", "--dynamic_batch_size=1,2", "--job_type=2"},
      job_env(dir));
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err == "aoe: --input_shape applies to ONNX models; the JSON graph " + json +
                     " has static shapes already\n");
  CHECK(aoe::test::opat_result_files(dir.path() / "work").empty());
}

}  // namespace tools_aoe_dynamic_shape_test
