// `aoe --singleop=FILE` (docs/cli.md#--singleop): the operators of ATC's single-operator
// description file tuned by OPAT in one job, in-process through aoe_tool::run.
#include "cli.hpp"
#include "run_aoe.hpp"
#include "single_op.hpp"
#include "support/opat_results.hpp"
#include "support/temp_dir.hpp"

#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace tools_aoe_singleop_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

using aoe::test::run_aoe;
using aoe::test::TempDir;

/// A TensorDesc of ATC's file: float16 in `format`.
std::string tensor(const std::string& shape, const std::string& format = "ND") {
  return R"({"format": ")" + format + R"(", "shape": )" + shape + R"(, "type": "float16"})";
}

/// The MatMul of the tools' small model (256x256 by 256x512) as ATC describes it, named `name`.
std::string matmul(const std::string& name) {
  return R"({"op": "MatMul", "name": ")" + name + R"(", "input_desc": [)" + tensor("[256, 256]") +
         ", " + tensor("[256, 512]") + R"(], "output_desc": [)" + tensor("[256, 512]") +
         R"(], "attr": [{"name": "transpose_a", "type": "bool", "value": false}]})";
}

/// A Relu on [64, 1024] with no name (so "<index>_Relu").
std::string relu() {
  return R"({"op": "Relu", "input_desc": [)" + tensor("[64, 1024]") + R"(], "output_desc": [)" +
         tensor("[64, 1024]") + "]}";
}

/// The environment of a job in `dir`: its bank and work directory.
std::map<std::string, std::string> job_env(const TempDir& dir) {
  fs::create_directories(dir.path() / "bank");
  return {{"TUNE_BANK_PATH", dir.file("bank")}, {"ASCEND_WORK_PATH", dir.file("work")}};
}

}  // namespace

TEST_CASE("aoe --singleop: every operator tuned in one job, one bank, one result file") {
  TempDir dir("singleop");
  const std::string ops =
      dir.write("ops.json", "[" + matmul("mm") + ", " + relu() + ", " + matmul("mm_again") + "]");
  const auto env = job_env(dir);
  const auto r = run_aoe({"--singleop=" + ops, "--job_type=2", "--report=off"}, env);
  INFO(r.out << r.err);
  REQUIRE(r.code == aoe_tool::exit_success);
  CHECK(r.out.find("aoe: --singleop " + ops + ": 3 operators, one bank\n") != std::string::npos);
  CHECK(r.out.find("mm process finished. Performance improved by ") != std::string::npos);
  const auto files = aoe::test::opat_result_files(dir.path() / "work");
  REQUIRE(files.size() == 1);  // one result file for the job
  CHECK(r.out.find("aoe: result file " + files[0].string() + "\n") != std::string::npos);
  const auto entries = aoe::test::report_entries(files[0]);
  CHECK(aoe::test::entry_names(entries) == std::vector<std::string>{"mm", "1_Relu", "mm_again"});
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].summary("repo_add_num") == 1);
  CHECK(entries[1].summary("total_num") == 1);
  CHECK(entries[2].summary("repo_hit_num") == 1);  // the same MatMul: what "mm" tuned
  CHECK(entries[2].summary("repo_add_num") == 0);

  // The bank is keyed by each operator's shapes, dtypes, formats and attributes.
  const auto keys = aoe::test::schedule_bank_keys(dir.path() / "bank");
  CHECK(keys.size() == 2);
  CHECK(aoe::test::has_key(keys,
                           "MatMul;in=[256,256]:float16:ND,[256,512]:float16:ND;out=[256,512]:"
                           "float16:ND;attrs=transpose_a=false;"));
  CHECK(aoe::test::has_key(keys, "Relu;in=[64,1024]:float16:ND;out=[64,1024]:float16:ND;"));

  const auto again = run_aoe({"--singleop=" + ops, "--job_type=2", "--report=off"}, env);
  REQUIRE(again.code == aoe_tool::exit_success);
  const auto second = aoe::test::report_entries(aoe::test::opat_result_files(dir.file("work"))[1]);
  REQUIRE(second.size() == 3);
  for (const auto& e : second) CHECK(e.summary("repo_hit_num") == e.summary("total_num"));
}

TEST_CASE("aoe --singleop: an operator the simulator cannot time fails alone, the job goes on") {
  TempDir dir("singleop_failed");
  const std::string topk = R"({"op": "TopK", "name": "top", "input_desc": [)" +
                           tensor("[64, 1024]") + R"(], "output_desc": [)" + tensor("[64, 8]") +
                           R"(], "attr": [{"name": "k", "type": "int", "value": 8}]})";
  const std::string ops = dir.write("ops.json", "[" + topk + ", " + relu() + "]");
  const auto r = run_aoe({"--singleop=" + ops, "--job_type=2", "--report=off"}, job_env(dir));
  INFO(r.out << r.err);
  CHECK(r.code == aoe_tool::exit_ops_failed);
  CHECK(r.err.find("aoe: operator top (TopK) failed: ") != std::string::npos);
  const auto entries =
      aoe::test::report_entries(aoe::test::opat_result_files(dir.file("work")).at(0));
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].opat.at("opat_tuning_result").as_string() == "tuning failed");
  CHECK(boost::json::serialize(entries[0].opat.at("tuning_failed_operators")) == R"(["top"])");
  CHECK(entries[1].name == "1_Relu");  // tuned after the failure
  CHECK(entries[1].opat.at("opat_tuning_result").as_string() == "tuning successful");
  CHECK(entries[1].summary("repo_add_num") == 1);
}

TEST_CASE(
    "aoe --singleop: a file that cannot be read or is malformed is exit 3, naming the field") {
  TempDir dir("singleop_bad");
  const auto env = job_env(dir);
  const auto run = [&](const std::string& text) {
    const std::string ops = dir.write("ops.json", text);
    return run_aoe({"--singleop=" + ops, "--job_type=2"}, env);
  };
  const std::string file = dir.file("ops.json");
  const std::string add_in = R"({"op": "Add", "input_desc": [)";
  const std::string add_out = R"(], "output_desc": [)" + tensor("[2]") + "]";
  const std::map<std::string, std::string> cases{
      {add_in + tensor("[2]") + R"(, {"format": "ND", "shape": "2", "type": "float16"})" + add_out +
           "}",
       "/0/input_desc/1/shape: expected an array of integers"},
      {add_in + tensor("[2, -1]") + add_out + "}",
       "/0/input_desc/0/shape/1: dynamic shape (dimension -1): AOE tunes static shapes only"},
      {add_in + R"({"format": "ND", "shape": [2], "type": "double"})" + add_out + "}",
       "/0/input_desc/0/type: expected a data type (float16, float, float32"},
      {add_in + R"({"format": "NCDHW", "shape": [2], "type": "float16"})" + add_out + "}",
       "/0/input_desc/0/format: expected a format (ND, NCHW"},
      {R"({"input_desc": [], "output_desc": []})", "/0/op: expected a non-empty string"},
      {R"({"op": "Add", "input_desc": []})", "/0/output_desc: expected an array of tensor"},
      {add_in + add_out + R"(, "attr": [{"name": "a", "type": "list_float", "value": [1.5]}]})",
       "/0/attr/0/type: ATC's attribute type 'list_float' is not read by OpenAOE"},
      {add_in + add_out + R"(, "attr": [{"name": "a", "type": "int", "value": "3"}]})",
       "/0/attr/0/value: expected an integer (the type is 'int')"},
      {add_in + add_out + R"(, "name": "x"}, )" + add_in + add_out + R"(, "name": "x"})",
       "/1: expected a unique name; operator 'x' is described twice"}};
  for (const auto& [op, message] : cases) {
    INFO(op);
    const auto r = run("[" + op + "]");
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(r.err.starts_with("aoe: " + file + ": " + message));
  }
  auto r = run(R"({"op": "Add"})");
  CHECK(r.code == aoe_tool::exit_input);
  CHECK(r.err.starts_with("aoe: " + file + ": /: expected a non-empty JSON array"));
  r = run("[]");
  CHECK(r.code == aoe_tool::exit_input);
  r = run(R"([{"op": "Add",)");  // truncated: line and column
  CHECK(r.code == aoe_tool::exit_input);
  CHECK(r.err.starts_with("aoe: " + file + ":1:"));
  r = run_aoe({"--singleop=" + dir.file("none.json"), "--job_type=2"}, env);
  CHECK(r.code == aoe_tool::exit_input);
  CHECK(r.err.starts_with("aoe: --singleop=" + dir.file("none.json") + ": cannot open"));
  CHECK(aoe::test::opat_result_files(dir.file("work")).empty());  // nothing tuned
}

TEST_CASE("aoe --singleop: with another job type or a model's flags is exit 2 naming the flag") {
  TempDir dir("singleop_flags");
  const std::string ops = dir.write("ops.json", "[" + relu() + "]");
  const std::string s = "--singleop=" + ops;
  const std::map<std::vector<std::string>, std::string> cases{
      {{s, "--job_type=1"}, "operator tuning (--job_type=2) only"},
      {{s, "--job_type=4"}, "operator tuning (--job_type=2) only"},
      {{s, "-j2", "--model=" + ops}, "instead of --model or --model_path, not with them"},
      {{s, "-j2", "--model_path=" + dir.path().string()},
       "instead of --model or --model_path, not with them"},
      {{s, "-j2", "--output=x.json"}, "each operator's tuned model goes to the workspace"},
      {{s, "-j2", "--input_shape=x:1"}, "the operators' shapes are in the file"},
      {{s, "-j2", "--input_shape=x:-1", "--dynamic_batch_size=1,2"},
       "the operators' shapes are in the file"}};
  for (const auto& [args, why] : cases) {
    INFO(args.back());
    const auto r = run_aoe(args, job_env(dir));
    CHECK(r.code == aoe_tool::exit_usage);
    CHECK(r.err.starts_with("aoe: --singleop: " + why));
  }
  CHECK(aoe::test::opat_result_files(dir.file("work")).empty());
}

TEST_CASE("aoe --singleop: the reader's graphs, one node each, as the simulator takes them") {
  const auto graphs = aoe_tool::parse_single_ops(
      R"([{"op": "Conv2D", "input_desc": [{"format": "NCHW", "shape": [1, 3, 16, 16],
           "type": "float"}, {"format": "NCHW", "shape": [3, 3, 3, 3], "type": "float16"}],
           "output_desc": [{"format": "NCHW", "shape": [1, 3, 16, 16], "type": "float16"}],
           "attr": [{"name": "strides", "type": "list_int", "value": [1, 1, 1, 1]},
                    {"name": "alpha", "type": "float", "value": 1},
                    {"name": "data_format", "type": "string", "value": "NCHW"}]}])",
      "conv.json");
  REQUIRE(graphs.has_value());
  REQUIRE(graphs->size() == 1);
  const auto& g = graphs->front();
  CHECK(g.name == "0_Conv2D");
  REQUIRE(g.nodes.size() == 1);
  const auto& n = g.nodes.front();
  CHECK(n.type == "Conv2D");
  REQUIRE(n.inputs.size() == 2);
  CHECK(n.inputs[0].name == "x0");
  CHECK(n.inputs[0].desc.dtype == aoe::DataType::float32);  // ATC's "float"
  CHECK(n.inputs[1].desc.shape == std::vector<std::int64_t>{3, 3, 3, 3});
  CHECK(n.outputs.at(0).desc.format == aoe::Format::NCHW);
  CHECK(std::get<std::vector<std::int64_t>>(n.attributes.at("strides")) ==
        std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(std::get<double>(n.attributes.at("alpha")) == 1.0);
  CHECK(std::get<std::string>(n.attributes.at("data_format")) == "NCHW");
}

}  // namespace tools_aoe_singleop_test
