// Profiling as msprof writes it (docs/reports.md#msprof-files): PROFILING_MODE,
// PROFILING_OPTIONS and --profiling_options, each file's columns and figures against the
// result file, the options' errors and their exit codes.
#include "run_aoe.hpp"
#include "support/csv.hpp"
#include "support/temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

using Table = aoe::test::CsvTable;
using aoe::test::parse_csv;

std::size_t column(const Table& t, const std::string& name) {
  for (std::size_t i = 0; i < t[0].size(); ++i) {
    if (t[0][i] == name) return i;
  }
  FAIL("no column " << name);
  return 0;
}

bool has_column(const Table& t, const std::string& name) {
  for (const auto& c : t[0]) {
    if (c == name) return true;
  }
  return false;
}

struct Run {
  aoe::test::AoeRun run;
  fs::path work;
  boost::json::object body;  ///< the result file's job object
};

const std::string model = std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/resnet50.json";

Run run_job(const aoe::test::TempDir& dir, const std::string& sub, int job_type,
            std::map<std::string, std::string> env, std::vector<std::string> extra = {}) {
  Run r;
  r.work = dir.path() / sub;
  fs::create_directories(dir.path() / (sub + "_bank"));
  env["TUNE_BANK_PATH"] = (dir.path() / (sub + "_bank")).string();
  env["ASCEND_WORK_PATH"] = r.work.string();
  env["TUNING_PARALLEL_NUM"] = "2";
  std::vector<std::string> args{"--model=" + model, "--job_type=" + std::to_string(job_type),
                                "--budget=16", "--progress_bar=off"};
  args.insert(args.end(), extra.begin(), extra.end());
  r.run = aoe::test::run_aoe(args, env);
  if (!fs::exists(r.work)) return r;
  for (const auto& e : fs::directory_iterator(r.work)) {
    const auto n = e.path().filename().string();
    if (!n.starts_with("aoe_result_")) continue;
    const auto root = boost::json::parse(read(e.path())).as_object();
    const char* job = job_type == 1 ? "SGAT" : job_type == 2 ? "OPAT" : "GDAT";
    r.body = root.begin()->value().as_array()[1].as_object().at(job).as_object();
  }
  return r;
}

bool any_result_file(const fs::path& work) {
  if (!fs::exists(work)) return false;
  for (const auto& e : fs::directory_iterator(work)) {
    if (e.path().filename().string().starts_with("aoe_result_")) return true;
  }
  return false;
}

std::string report_csv(const fs::path& work) {
  for (const auto& e : fs::directory_iterator(work)) {
    if (e.path().filename().string().ends_with("_op_summary.csv")) return read(e.path());
  }
  return {};
}

}  // namespace

TEST_CASE("PROFILING_MODE=true: OPAT's op_summary, op_statistic, task_time, fusion_op, prof_rule") {
  aoe::test::TempDir dir("profiling_opat");
  const Run plain = run_job(dir, "plain", 2, {});
  const Run r = run_job(dir, "prof", 2, {{"PROFILING_MODE", "true"}});
  INFO(r.run.err);
  REQUIRE(r.run.code == 0);
  const double after_us = r.body.at("model_result_performance(ms)").as_double() * 1e3;
  // Without PROFILING_MODE nothing of profiling is written, and the report's op_summary is the
  // same bytes with it.
  CHECK_FALSE(fs::exists(plain.work / "op_summary_0_1_1.csv"));
  CHECK(report_csv(plain.work) == report_csv(r.work));

  const Table summary = parse_csv(read(r.work / "op_summary_0_1_1.csv"));
  REQUIRE(summary.size() > 2);
  CHECK(summary.size() - 1 == r.body.at("repo_summary").as_object().at("total_num").as_int64());
  CHECK(has_column(summary, "Task Start Time(us)"));  // task_trace on by default
  CHECK(has_column(summary, "aic_mac_ratio"));        // PipeUtilization by default
  double sum = 0;
  std::set<std::string> names;
  for (std::size_t i = 1; i < summary.size(); ++i) {
    sum += std::stod(summary[i][column(summary, "Task Duration(us)")]);
    names.insert(summary[i][column(summary, "Op Name")]);
    CHECK(summary[i][column(summary, "Timing")] == "simulated");
  }
  CHECK(sum == doctest::Approx(after_us).epsilon(1e-5));

  const Table stats = parse_csv(read(r.work / "op_statistic_0_1_1.csv"));
  double total = 0;
  double ratio = 0;
  std::size_t count = 0;
  for (std::size_t i = 1; i < stats.size(); ++i) {
    const auto v = [&](const char* c) { return std::stod(stats[i][column(stats, c)]); };
    total += v("Total Time(us)");
    ratio += v("Ratio(%)");
    count += static_cast<std::size_t>(v("Count"));
    CHECK(v("Min Time(us)") <= v("Avg Time(us)") + 1e-3);
    CHECK(v("Avg Time(us)") <= v("Max Time(us)") + 1e-3);
    CHECK(v("Avg Time(us)") * v("Count") == doctest::Approx(v("Total Time(us)")).epsilon(1e-3));
    if (i > 1)
      CHECK(std::stod(stats[i - 1][column(stats, "Total Time(us)")]) >= v("Total Time(us)"));
  }
  CHECK(count == summary.size() - 1);
  CHECK(total == doctest::Approx(after_us).epsilon(1e-5));
  CHECK(ratio == doctest::Approx(100.0).epsilon(1e-3));

  const Table tasks = parse_csv(read(r.work / "task_time_0_1_1.csv"));
  CHECK(tasks.size() == summary.size());
  CHECK(tasks[0][1] == "kernel_name");

  const Table fusion = parse_csv(read(r.work / "fusion_op_0_1_1.csv"));
  REQUIRE(fusion.size() > 1);
  for (std::size_t i = 1; i < fusion.size(); ++i) {
    const auto& row = fusion[i];
    CHECK(names.contains(row[column(fusion, "Fusion Op")]));
    CHECK(row[column(fusion, "Original Ops")].find(';') != std::string::npos);
    const auto kb = [&](const char* c) { return std::stod(row[column(fusion, c)]); };
    CHECK(kb("Memory Total(KB)") ==
          doctest::Approx(kb("Memory Input(KB)") + kb("Memory Output(KB)") +
                          kb("Memory Weight(KB)") + kb("Memory Workspace(KB)"))
              .epsilon(1e-6));
  }

  const auto rule = boost::json::parse(read(r.work / "prof_rule_0.json")).as_object();
  CHECK(rule.at("simulated").as_bool());
  const auto& rules = rule.at("rules").as_array();
  REQUIRE(!rules.empty());
  for (const auto& v : rules) {
    const auto& o = v.as_object();
    CHECK(names.contains(std::string(o.at("target").as_string())));
    const std::string command(o.at("command").as_string());
    CHECK(command.starts_with("aoe --model=" + model + " --job_type="));
  }
}

TEST_CASE("PROFILING_OPTIONS: output, task_trace off, aic_metrics; --profiling_options wins") {
  aoe::test::TempDir dir("profiling_options");
  const fs::path out = dir.path() / "prof_out";
  const Run r = run_job(dir, "mem", 2,
                        {{"PROFILING_MODE", "true"},
                         {"PROFILING_OPTIONS", "{\"output\":\"" + out.string() +
                                                   "\",\"task_trace\":\"off\",\"aic_metrics\":"
                                                   "\"Memory\",\"l2\":\"on\"}"}});
  INFO(r.run.err);
  REQUIRE(r.run.code == 0);
  CHECK(r.run.err.find("PROFILING_OPTIONS: /l2: not read") != std::string::npos);
  CHECK_FALSE(fs::exists(r.work / "op_summary_0_1_1.csv"));
  CHECK_FALSE(fs::exists(out / "task_time_0_1_1.csv"));
  const Table summary = parse_csv(read(out / "op_summary_0_1_1.csv"));
  CHECK_FALSE(has_column(summary, "Task Start Time(us)"));
  CHECK_FALSE(has_column(summary, "aic_mac_ratio"));
  const auto bw = column(summary, "main_mem_read_bw(GB/s)");
  CHECK(std::stod(summary[1][bw]) > 0);

  // The flag wins: PROFILING_OPTIONS is not even parsed, and profiling is on without the mode.
  const fs::path flag_out = dir.path() / "flag_out";
  const Run f = run_job(dir, "flag", 2, {{"PROFILING_OPTIONS", "not json"}},
                        {"--profiling_options={\"output\":\"" + flag_out.string() +
                         "\",\"aic_metrics\":\"ArithmeticUtilization\"}"});
  INFO(f.run.err);
  REQUIRE(f.run.code == 0);
  const Table arith = parse_csv(read(flag_out / "op_summary_0_1_1.csv"));
  CHECK(has_column(arith, "aic_cube_ratio"));
  CHECK(has_column(arith, "aiv_vec_ratio"));
  CHECK(fs::exists(flag_out / "prof_rule_0.json"));
}

TEST_CASE("bad profiling options: the variable or flag and the field, exit 4, 2 or 5") {
  aoe::test::TempDir dir("profiling_errors");
  struct Case {
    std::map<std::string, std::string> env;
    std::vector<std::string> flags;
    int code;
    std::string message;
  };
  fs::create_directories(dir.path() / "a_file_parent");
  std::ofstream(dir.path() / "a_file_parent" / "file") << "x";
  const std::string file_output = (dir.path() / "a_file_parent" / "file").string();
  const std::vector<Case> cases{
      {{{"PROFILING_MODE", "yes"}}, {}, 4, "PROFILING_MODE='yes': expected true or false"},
      {{{"PROFILING_MODE", "true"}, {"PROFILING_OPTIONS", "{\"output\":"}},
       {},
       4,
       "environment variable PROFILING_OPTIONS:"},
      {{{"PROFILING_MODE", "true"}, {"PROFILING_OPTIONS", "{\"aic_metrics\":\"Foo\"}"}},
       {},
       4,
       "PROFILING_OPTIONS: /aic_metrics: 'Foo': expected one of PipeUtilization"},
      {{{"PROFILING_MODE", "true"}, {"PROFILING_OPTIONS", "{\"aic_metrics\":\"L2Cache\"}"}},
       {},
       4,
       "'L2Cache' is an msprof metric the simulator does not model"},
      {{}, {"--profiling_options={\"hccl\":1}"}, 2, "--profiling_options: /hccl: expected"},
      {{}, {"--profiling_options=[]"}, 2, "--profiling_options: /: expected a JSON object"},
      {{{"PROFILING_MODE", "true"},
        {"PROFILING_OPTIONS", "{\"output\":\"" + file_output + "/sub\"}"}},
       {},
       5,
       "PROFILING_OPTIONS: /output: cannot create the profiling output directory"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const Run r = run_job(dir, "e" + std::to_string(i), 2, c.env, c.flags);
    INFO(i, ": ", r.run.err);
    CHECK(r.run.code == c.code);
    CHECK(r.run.err.find(c.message) != std::string::npos);
    CHECK_FALSE(any_result_file(r.work));  // refused before the job: nothing written
  }
}

TEST_CASE("GDAT: step_trace and hccl of the split in use, fp_point and bp_point, prof_rule") {
  aoe::test::TempDir dir("profiling_gdat");
  const Run r = run_job(dir, "g", 4, {{"PROFILING_MODE", "true"}});
  INFO(r.run.err);
  REQUIRE(r.run.code == 0);
  const Table step = parse_csv(read(r.work / "step_trace_0_1_1.csv"));
  REQUIRE(step.size() == 2);
  const auto v = [&](const char* c) { return std::stod(step[1][column(step, c)]); };
  CHECK(v("FP Start") == 0.0);
  // The columns are printed with three decimals: each difference is within two of them.
  CHECK(std::abs(v("FP to BP Time(us)") - (v("BP End") - v("FP Start"))) <= 0.002);
  CHECK(std::abs(v("Iteration Refresh(us)") - (v("Iteration End") - v("BP End"))) <= 0.002);
  CHECK(v("Iteration Refresh(us)") >= 0);
  CHECK(step[1][column(step, "Data Aug Bound(us)")] == "N/A");
  std::size_t reduces = 0;
  for (const auto& c : step[0]) reduces += c == "Reduce Start" ? 1 : 0;
  REQUIRE(reduces > 0);

  const auto hccl = boost::json::parse(read(r.work / "hccl_0_1_1.json")).as_object();
  std::size_t segments = 0;
  std::int64_t bytes = 0;
  for (const auto& e : hccl.at("traceEvents").as_array()) {
    const auto& o = e.as_object();
    if (o.at("ph").as_string() != "X") continue;
    ++segments;
    bytes += o.at("args").as_object().at("size(Byte)").as_int64();
    CHECK(o.at("args").as_object().at("simulated").as_bool());
  }
  CHECK(segments == reduces);
  CHECK(bytes > 0);
  const auto trace = boost::json::parse(read(r.work / "step_trace_0_1_1.json")).as_object();
  CHECK(trace.at("otherData").as_object().at("simulated").as_bool());
  CHECK(fs::exists(r.work / "prof_rule_0.json"));

  // A bp_point the profile does not have: BP End and what depends on it are N/A, as msprof.
  const Run n = run_job(dir, "n", 4, {},
                        {"--profiling_options={\"training_trace\":\"on\",\"bp_point\":\"nope\"}"});
  REQUIRE(n.run.code == 0);
  const Table missing = parse_csv(read(n.work / "step_trace_0_1_1.csv"));
  CHECK(missing[1][column(missing, "BP End")] == "N/A");
  CHECK(missing[1][column(missing, "FP to BP Time(us)")] == "N/A");
  CHECK(missing[1][column(missing, "Iteration Refresh(us)")] == "N/A");
  CHECK_FALSE(fs::exists(n.work / "hccl_0_1_1.json"));  // hccl left out: off
}

TEST_CASE("SGAT: fusion_op carries each subgraph's strategy") {
  aoe::test::TempDir dir("profiling_sgat");
  const Run r = run_job(dir, "s", 1, {{"PROFILING_MODE", "true"}}, {"--report=off"});
  INFO(r.run.err);
  REQUIRE(r.run.code == 0);
  const Table fusion = parse_csv(read(r.work / "fusion_op_0_1_1.csv"));
  REQUIRE(fusion.size() > 1);
  std::size_t with_strategy = 0;
  for (std::size_t i = 1; i < fusion.size(); ++i) {
    with_strategy += fusion[i][column(fusion, "SGAT Strategy")].find("cut=") != std::string::npos;
  }
  CHECK(with_strategy > 0);
  CHECK(fs::exists(r.work / "op_statistic_0_1_1.csv"));
}
