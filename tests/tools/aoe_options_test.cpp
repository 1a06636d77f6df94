// The `aoe` command's options of issue 32 (docs/cli.md): aoe.ini, --aicore_num, --Fdeeper_opat
// and --model_path, in-process through aoe_tool::run.
#include "cli.hpp"
#include "run_aoe.hpp"
#include "support/small_model.hpp"
#include "support/temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tools_aoe_options_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

using aoe::test::run_aoe;
using aoe::test::small_model;
using aoe::test::TempDir;
using aoe::test::write_text;

/// The result files `aoe_result_opat_*.json` in `dir`.
std::vector<fs::path> result_files(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().starts_with("aoe_result_opat_")) out.push_back(e.path());
  }
  return out;
}

/// A CANN-like install under `dir` whose tools/aoe/conf/aoe.ini holds `text`; returns its root.
fs::path cann_with_ini(const fs::path& dir, const std::string& text) {
  const fs::path root = dir / "cann";
  fs::create_directories(root / "tools" / "aoe" / "conf");
  write_text(root / "tools" / "aoe" / "conf" / "aoe.ini", text);
  return root;
}

}  // namespace

TEST_CASE("aoe: aoe.ini's WORK_PATH and TUNING_PARALLEL_NUM, under the environment") {
  TempDir dir("ini_job");
  const auto model = write_text(dir.path() / "small.json", small_model);
  fs::create_directories(dir.path() / "bank");
  const fs::path ini_work = dir.path() / "ini_work";
  const auto root = cann_with_ini(
      dir.path(),
      "# test\nTUNING_PARALLEL_NUM=3\nRUN_LOOP=20\nWORK_PATH=" + ini_work.string() + "\n");
  std::map<std::string, std::string> env{{"TUNE_BANK_PATH", (dir.path() / "bank").string()},
                                         {"ASCEND_HOME_PATH", root.string()}};
  const auto first = run_aoe({"--model=" + model.string(), "--job_type=2", "--log=debug"}, env);
  INFO(first.err);
  REQUIRE(first.code == aoe_tool::exit_success);
  CHECK(result_files(ini_work).size() == 1);  // WORK_PATH of the file
  CHECK(first.out.find("TUNING_PARALLEL_NUM=3 (aoe.ini), RUN_LOOP=20 (aoe.ini), work path " +
                       ini_work.string() + " (aoe.ini)") != std::string::npos);

  env["ASCEND_WORK_PATH"] = (dir.path() / "env_work").string();
  env["TUNING_PARALLEL_NUM"] = "2";
  const auto second = run_aoe({"--model=" + model.string(), "--job_type=2", "--log=debug"}, env);
  REQUIRE(second.code == aoe_tool::exit_success);
  CHECK(result_files(dir.path() / "env_work").size() == 1);  // the variable wins
  CHECK(result_files(ini_work).size() == 1);
  CHECK(second.out.find("TUNING_PARALLEL_NUM=2 (environment)") != std::string::npos);
  CHECK(second.out.find("(environment)\n") != std::string::npos);  // the work path's
}

TEST_CASE("aoe: a bad value in aoe.ini is exit 2 naming the file, the line and the key") {
  TempDir dir("ini_bad");
  const auto model = write_text(dir.path() / "small.json", small_model);
  const std::string m = "--model=" + model.string();
  const auto root = cann_with_ini(dir.path(), "WORK_PATH=./\nRUN_LOOP=0\n");
  const std::string file = (root / "tools" / "aoe" / "conf" / "aoe.ini").string();
  auto r = run_aoe({m, "-j", "2"}, {{"ASCEND_HOME_PATH", root.string()}});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err == "aoe: " + file + ":2: RUN_LOOP: '0': expected an integer in [1, 2048]\n");
  write_text(file, "TUNING_PARALLEL_NUM=many\n");
  r = run_aoe({m, "-j", "2"}, {{"ASCEND_HOME_PATH", root.string()}});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find(file + ":1: TUNING_PARALLEL_NUM: 'many'") != std::string::npos);
  write_text(file, "WORK_PATH=" + model.string() + "\n");
  r = run_aoe({m, "-j", "2"}, {{"ASCEND_HOME_PATH", root.string()}});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find(file + ":1: WORK_PATH: ") != std::string::npos);
  fs::remove(file);
  fs::create_directories(file);  // a directory where the file should be
  r = run_aoe({m, "-j", "2"}, {{"ASCEND_HOME_PATH", root.string()}});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find(file + ": is a directory") != std::string::npos);
}

TEST_CASE("aoe: the newer conf/aoe.ini under ASCEND_TOOLKIT_HOME; unknown keys warn") {
  TempDir dir("ini_toolkit");
  const auto model = write_text(dir.path() / "small.json", small_model);
  fs::create_directories(dir.path() / "bank");
  fs::create_directories(dir.path() / "toolkit" / "conf");
  write_text(dir.path() / "toolkit" / "conf" / "aoe.ini",
             "WORK_PATH=" + (dir.path() / "w").string() + "\nPORT=8000\n");
  const auto r = run_aoe({"--model=" + model.string(), "-j", "2"},
                         {{"TUNE_BANK_PATH", (dir.path() / "bank").string()},
                          {"ASCEND_TOOLKIT_HOME", (dir.path() / "toolkit").string()}});
  INFO(r.err);
  REQUIRE(r.code == aoe_tool::exit_success);
  CHECK(result_files(dir.path() / "w").size() == 1);
  CHECK(r.err.find("aoe.ini:2: PORT: not a key OpenAOE reads") != std::string::npos);
}

}  // namespace tools_aoe_options_test

namespace tools_aoe_options_test {

namespace {

/// The "OPAT" object of result file `file`.
boost::json::object opat_of(const fs::path& file) {
  const auto root = boost::json::parse(aoe::test::read_text(file)).as_object();
  return root.begin()->value().as_array()[1].as_object().at("OPAT").as_object();
}

/// The one result file in `dir`, which must hold exactly one.
fs::path only_result(const fs::path& dir) {
  const auto files = result_files(dir);
  REQUIRE(files.size() == 1);
  return files.front();
}

/// The knowledge of the only entry of bank file `file`.
boost::json::value only_knowledge(const fs::path& file) {
  const auto root = boost::json::parse(aoe::test::read_text(file)).as_object();
  const auto& entries = root.at("entries").as_object();
  REQUIRE(entries.size() == 1);
  return entries.begin()->value().as_object().at("knowledge");
}

}  // namespace

TEST_CASE("aoe: --aicore_num=2 is slower, tunes another tiling and is kept apart in the bank") {
  TempDir dir("aicore");
  const auto model = write_text(dir.path() / "small.json", small_model);
  const fs::path bank = dir.path() / "bank";
  fs::create_directories(bank);
  const auto env_for = [&](const std::string& work) {
    return std::map<std::string, std::string>{{"TUNE_BANK_PATH", bank.string()},
                                              {"ASCEND_WORK_PATH", (dir.path() / work).string()}};
  };
  const std::string m = "--model=" + model.string();
  const auto all = run_aoe({m, "-j", "2", "--log=null"}, env_for("all"));
  REQUIRE(all.code == aoe_tool::exit_success);
  const auto two = run_aoe({m, "-j", "2", "--log=null", "--aicore_num=2"}, env_for("two"));
  INFO(two.err);
  REQUIRE(two.code == aoe_tool::exit_success);
  const auto all_opat = opat_of(only_result(dir.path() / "all"));
  const auto two_opat = opat_of(only_result(dir.path() / "two"));
  const auto ms = [](const boost::json::object& o, const char* field) {
    return o.at(field).to_number<double>();
  };
  MESSAGE("32 cores: " << ms(all_opat, "model_baseline_performance(ms)") << " ms -> "
                       << ms(all_opat, "model_result_performance(ms)")
                       << " ms; 2 cores: " << ms(two_opat, "model_baseline_performance(ms)")
                       << " ms -> " << ms(two_opat, "model_result_performance(ms)") << " ms");
  CHECK(ms(two_opat, "model_baseline_performance(ms)") >
        2 * ms(all_opat, "model_baseline_performance(ms)"));
  CHECK(ms(two_opat, "model_result_performance(ms)") >
        2 * ms(all_opat, "model_result_performance(ms)"));
  // Not a hit of the 32-core entry: the core count chooses the bank file, as AOE's.
  CHECK(two_opat.at("repo_summary").as_object().at("repo_hit_num").as_int64() == 0);
  const fs::path files = bank / "Ascend910A" / "unified_bank";
  REQUIRE(fs::exists(files / "Ascend910A_32_AiCore_schedule.json"));
  REQUIRE(fs::exists(files / "Ascend910A_2_AiCore_schedule.json"));
  const auto all_tiling = only_knowledge(files / "Ascend910A_32_AiCore_schedule.json");
  const auto two_tiling = only_knowledge(files / "Ascend910A_2_AiCore_schedule.json");
  CHECK(all_tiling != two_tiling);
  const auto blocks = [](const boost::json::value& k) {
    return k.at("block_m").as_int64() * k.at("block_n").as_int64();
  };
  CHECK(blocks(two_tiling) <= 2);  // the block dim follows the cores
  CHECK(blocks(all_tiling) > 2);
  const auto again = run_aoe({m, "-j", "2", "--log=null", "--aicore_num=2"}, env_for("again"));
  REQUIRE(again.code == aoe_tool::exit_success);
  CHECK(opat_of(only_result(dir.path() / "again"))
            .at("repo_summary")
            .as_object()
            .at("repo_hit_num")
            .as_int64() == 1);
}

TEST_CASE("aoe: a bad --aicore_num is exit 2 naming the flag") {
  TempDir dir("aicore_bad");
  const auto model = write_text(dir.path() / "small.json", small_model);
  const std::string m = "--model=" + model.string();
  for (const std::string v : {"0", "33", "-1", "eight", "8x", "1e1"}) {
    const auto r = run_aoe({m, "-j", "2", "--aicore_num=" + v}, {});
    CHECK(r.code == aoe_tool::exit_usage);
    CHECK(r.err == "aoe: --aicore_num=" + v +
                       ": expected an integer in [1, 32] (the AI Cores of Ascend910A)\n");
  }
  auto r = run_aoe({m, "-j", "2", "--soc_version=Ascend310P3", "--aicore_num=9"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find("[1, 8] (the AI Cores of Ascend310P3)") != std::string::npos);
  r = run_aoe({m, "-j", "1", "--aicore_num=8"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find("aoe: --aicore_num: only operator tuning") == 0);
}

TEST_CASE("aoe: --Fdeeper_opat tunes every kind with 4 times the evaluations, at least as well") {
  TempDir dir("deeper");
  const auto model = write_text(dir.path() / "small.json", small_model);
  const auto run_with = [&](const std::string& name, std::vector<std::string> extra) {
    fs::create_directories(dir.path() / name / "bank");
    std::vector<std::string> args{"--model=" + model.string(), "-j", "2", "--log=debug",
                                  "--budget=1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_aoe(args, {{"TUNE_BANK_PATH", (dir.path() / name / "bank").string()},
                          {"ASCEND_WORK_PATH", (dir.path() / name).string()}});
  };
  const auto normal = run_with("normal", {});
  REQUIRE(normal.code == aoe_tool::exit_success);
  CHECK(normal.err.find("--Fdeeper_opat") == std::string::npos);
  const auto deeper = run_with("deeper", {"--Fdeeper_opat"});
  INFO(normal.out);
  INFO(deeper.out);
  REQUIRE(deeper.code == aoe_tool::exit_success);
  CHECK(deeper.err.find("aoe: warning: --Fdeeper_opat: a deeper search (Schedule, Format and "
                        "Impl, 4 evaluations per operator and kind, 4 times the budget) takes "
                        "several times the tuning time") != std::string::npos);
  CHECK(normal.out.find(", 1 evaluations per operator") != std::string::npos);
  CHECK(deeper.out.find(", 4 evaluations per operator") != std::string::npos);
  // One evaluation (the default tiling) finds nothing better; four do, and Format is tuned too
  // (MatMul has no Impl choice).
  CHECK(normal.out.find("Schedule unsatisfied 25.792 us -> 25.792 us (1 evaluations)") !=
        std::string::npos);
  CHECK(normal.out.find("Format ") == std::string::npos);
  CHECK(deeper.out.find("Schedule add 25.792 us -> 25.399 us") != std::string::npos);
  CHECK(deeper.out.find("; Format ") != std::string::npos);
  const auto before = opat_of(only_result(dir.path() / "normal"));
  const auto after = opat_of(only_result(dir.path() / "deeper"));
  CHECK(after.at("model_result_performance(ms)").to_number<double>() <=
        before.at("model_result_performance(ms)").to_number<double>());
  const auto r = run_aoe({"--model=" + model.string(), "-j", "4", "--Fdeeper_opat"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find("aoe: --Fdeeper_opat: ") == 0);
}

}  // namespace tools_aoe_options_test

namespace tools_aoe_options_test {

namespace {

/// `small_model`'s MatMul+BiasAdd under the name "second", with a Relu of its own.
const char* const second_model = R"({"format_version": 1, "name": "second",
  "tensors": {"x": {"shape": [256, 256], "dtype": "float16"}, "w": {"shape": [256, 512], "dtype": "float16"},
              "b": {"shape": [512], "dtype": "float16"}, "y": {"shape": [256, 512], "dtype": "float16"},
              "z": {"shape": [256, 512], "dtype": "float16"}, "q": {"shape": [64, 1024], "dtype": "float16"},
              "s": {"shape": [64, 1024], "dtype": "float16"}},
  "nodes": [{"name": "fc/MatMul", "type": "MatMul", "inputs": ["x", "w"], "outputs": ["y"]},
            {"name": "fc/BiasAdd", "type": "BiasAdd", "inputs": ["y", "b"], "outputs": ["z"]},
            {"name": "act", "type": "Relu", "inputs": ["q"], "outputs": ["s"]}]})";

}  // namespace

TEST_CASE("aoe: --model_path tunes every model in one job, one bank, one result file") {
  TempDir dir("model_path");
  fs::create_directories(dir.path() / "models");
  fs::create_directories(dir.path() / "bank");
  write_text(dir.path() / "models" / "b_second.json", second_model);
  write_text(dir.path() / "models" / "a_small.json", small_model);
  write_text(dir.path() / "models" / "notes.txt", "not a model");
  const std::map<std::string, std::string> env{
      {"TUNE_BANK_PATH", (dir.path() / "bank").string()},
      {"ASCEND_WORK_PATH", (dir.path() / "work").string()}};
  const auto r = run_aoe({"--model_path=" + (dir.path() / "models").string(), "--job_type=2"}, env);
  INFO(r.err);
  REQUIRE(r.code == aoe_tool::exit_success);
  CHECK(r.out.find("aoe: --model_path " + (dir.path() / "models").string() +
                   ": 2 models, one bank\n") != std::string::npos);
  const auto small_line = r.out.find("small process finished. Performance improved by ");
  const auto second_line = r.out.find("second process finished. Performance improved by ");
  CHECK(small_line < second_line);  // in the order of their file names
  CHECK(second_line != std::string::npos);
  const auto file = only_result(dir.path() / "work");  // one result file for the job
  CHECK(r.out.find("aoe: result file " + file.string() + "\n") != std::string::npos);
  const auto root = boost::json::parse(aoe::test::read_text(file)).as_object();
  REQUIRE(root.size() == 2);  // one report entry per model
  std::vector<std::string> names;
  std::vector<boost::json::object> summaries;
  for (const auto& entry : root) {
    CHECK(entry.key().starts_with("report_"));
    const auto& parts = entry.value().as_array();
    names.emplace_back(parts[0].as_object().at("basic").as_object().at("tuning_name").as_string());
    summaries.push_back(parts[1].as_object().at("OPAT").as_object().at("repo_summary").as_object());
  }
  CHECK(names == std::vector<std::string>{"small", "second"});
  CHECK(summaries[0].at("repo_hit_num").as_int64() == 0);
  CHECK(summaries[1].at("total_num").as_int64() == 2);
  CHECK(summaries[1].at("repo_hit_num").as_int64() == 1);  // what "small" tuned is a hit
}

TEST_CASE("aoe: --model_path's errors") {
  TempDir dir("model_path_bad");
  const auto model = write_text(dir.path() / "small.json", small_model);
  fs::create_directories(dir.path() / "empty");
  write_text(dir.path() / "empty" / "README", "no models");
  auto r = run_aoe({"--model_path=" + (dir.path() / "none").string(), "-j", "2"}, {});
  CHECK(r.code == aoe_tool::exit_input);
  CHECK(r.err.find("expected a directory of models") != std::string::npos);
  r = run_aoe({"--model_path=" + model.string(), "-j", "2"}, {});  // a file, not a directory
  CHECK(r.code == aoe_tool::exit_input);
  r = run_aoe({"--model_path=" + (dir.path() / "empty").string(), "-j", "2"}, {});
  CHECK(r.code == aoe_tool::exit_input);
  CHECK(r.err.find(": no model (*.json, *.onnx) in it") != std::string::npos);
  r = run_aoe({"--model_path=" + dir.path().string(), "-j", "1"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err == "aoe: --model_path: operator tuning (--job_type=2) only\n");
  r = run_aoe({"--model_path=" + dir.path().string(), "--model=" + model.string(), "-j", "2"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err == "aoe: --model_path: instead of --model, not with it\n");
  r = run_aoe({"--model_path=" + dir.path().string(), "--output=x.json", "-j", "2"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  // Under mpirun each rank would read --model: refused (a build without MPI refuses any launch
  // of several ranks, with its own message).
  fs::create_directories(dir.path() / "bank");
  r = run_aoe({"--model_path=" + dir.path().string(), "-j", "2"},
              {{"OMPI_COMM_WORLD_SIZE", "2"},
               {"OMPI_COMM_WORLD_RANK", "0"},
               {"TUNE_BANK_PATH", (dir.path() / "bank").string()},
               {"ASCEND_WORK_PATH", (dir.path() / "work").string()}});
  CHECK(r.code == aoe_tool::exit_usage);
#if defined(AOE_WITH_MPI)
  CHECK(r.err ==
        "aoe: --model_path: runs in one process, not as several MPI ranks (each rank "
        "reads --model)\n");
#endif
}

}  // namespace tools_aoe_options_test
