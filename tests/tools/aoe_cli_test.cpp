// The `aoe` command: in-process through aoe_tool::run, and as a process (SIGINT in the middle of
// a job) when the binary's path is known: env AOE_BINARY, else the build's AOE_TOOL_AOE_PATH.
#include "cli.hpp"
#include "run_aoe.hpp"
#include "support/skip.hpp"
#include "support/small_model.hpp"
#include "support/spawn_aoe.hpp"
#include "support/temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace tools_aoe_cli_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

using aoe::test::small_model;
using aoe::test::TempDir;
using aoe::test::write_text;

using Run = aoe::test::AoeRun;

Run run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
  return aoe::test::run_aoe(args, env);
}

std::string last_line(const std::string& text) {
  auto end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const auto start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

}  // namespace

TEST_CASE("aoe: a job on the simulator, then every operator a bank hit") {
  TempDir dir("job");
  const auto model = write_text(dir.path() / "small.json", small_model);
  fs::create_directories(dir.path() / "bank");
  const std::map<std::string, std::string> env{{"TUNE_BANK_PATH", (dir.path() / "bank").string()},
                                               {"ASCEND_WORK_PATH", (dir.path() / "work").string()},
                                               {"TUNING_PARALLEL_NUM", "2"}};
  const auto first = run({"--model=" + model.string(), "--job_type=2"}, env);
  INFO(first.err);
  REQUIRE(first.code == aoe_tool::exit_success);
  CHECK(last_line(first.out).find("small process finished. Performance improved by ") == 0);
  CHECK(last_line(first.out).ends_with("% (simulated)"));  // AOE's line, then the kind
  // The operator's line (--log=info, the default) says its times' kind as the summary does.
  const auto op = first.out.find("[1/1] fc/MatMulfc/BiasAdd (MatMul+BiasAdd): ");
  REQUIRE(op != std::string::npos);
  const std::string op_line = first.out.substr(op, first.out.find('\n', op) - op);
  CHECK(op_line.find(" us, simulated") != std::string::npos);
  auto env_mode = env;
  env_mode["AOE_MODE"] = "2";  // no --job_type: AOE_MODE chooses OPAT
  const auto second = run({"-m", model.string(), "--log=null"}, env_mode);
  REQUIRE(second.code == aoe_tool::exit_success);
  std::vector<fs::path> results;
  for (const auto& e : fs::directory_iterator(dir.path() / "work")) {
    if (e.path().filename().string().starts_with("aoe_result_opat_")) results.push_back(e.path());
  }
  REQUIRE(results.size() == 2);
  for (const auto& r : results) {
    const auto root = boost::json::parse(aoe::test::read_text(r)).as_object();
    const auto& opat = root.begin()->value().as_array()[1].as_object().at("OPAT").as_object();
    const auto& summary = opat.at("repo_summary").as_object();
    CHECK(summary.at("total_num").as_int64() == 1);
    CHECK(opat.at("opat_tuning_result").as_string() == "tuning successful");
  }
}

TEST_CASE(
    "aoe: unknown job types, frameworks and devices this build lacks are clear usage errors") {
  TempDir dir("usage");
  const auto model = write_text(dir.path() / "small.json", small_model);
  const std::string m = "--model=" + model.string();
  auto r = run({m, "--job_type=3"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find("expected 1 (subgraph), 2 (operator) or 4 (gradient)") != std::string::npos);
  r = run({m}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find("--job_type is required") != std::string::npos);
  r = run({m}, {{"AOE_MODE", "3"}});  // AOE_MODE itself must be 1, 2 or 4
  CHECK(r.code == aoe_tool::exit_environment);
  r = run({m, "-j", "2", "--framework=3"}, {});  // TensorFlow: export to ONNX (--framework=5)
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find("--framework=5") != std::string::npos);
  r = run({m, "-j", "2", "--device=ascend"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find("no Ascend runner") != std::string::npos);
  r = run({m, "-j", "2", "--search=magic"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  CHECK(r.err.find("magic") != std::string::npos);
  r = run({m, "-j", "2", "--soc_version=Ascend999"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
  r = run({m, "-j", "2", "--tune_optimization_level=O3"}, {});
  CHECK(r.code == aoe_tool::exit_usage);
}

TEST_CASE("aoe: bad inputs and environments") {
  TempDir dir("bad");
  const auto model = write_text(dir.path() / "small.json", small_model);
  const std::map<std::string, std::string> env{
      {"TUNE_BANK_PATH", dir.path().string()},
      {"ASCEND_WORK_PATH", (dir.path() / "work").string()}};
  SUBCASE("bad environment values name the variable") {
    auto bad = env;
    bad["TUNING_PARALLEL_NUM"] = "zero";
    const auto r = run({"--model=" + model.string(), "--job_type=2"}, bad);
    CHECK(r.code == aoe_tool::exit_environment);
    CHECK(r.err.find("TUNING_PARALLEL_NUM") != std::string::npos);
  }
  SUBCASE("a missing, truncated or dynamic model") {
    auto r = run({"--model=" + (dir.path() / "none.json").string(), "--job_type=2"}, env);
    CHECK(r.code == aoe_tool::exit_input);
    const std::string text = small_model;
    const auto cut = write_text(dir.path() / "cut.json", text.substr(0, 100));
    r = run({"--model=" + cut.string(), "--job_type=2"}, env);
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(r.err.find("cut.json:") != std::string::npos);
    std::string dynamic = text;
    dynamic.replace(dynamic.find("[256, 256]"), 10, "[-1, 256]");
    const auto dyn = write_text(dir.path() / "dyn.json", dynamic);
    r = run({"--model=" + dyn.string(), "--job_type=2"}, env);
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(r.err.find("dynamic shape") != std::string::npos);
  }
  SUBCASE("an unknown operator type is a failed operator; the job goes on") {
    std::string text = small_model;
    text.replace(text.find("\"BiasAdd\""), 9, "\"Frobnicate\"");
    const auto unknown = write_text(dir.path() / "unknown.json", text);
    const auto r = run({"--model=" + unknown.string(), "--job_type=2"}, env);
    CHECK(r.code == aoe_tool::exit_ops_failed);
    CHECK(r.out.find("Frobnicate") != std::string::npos);
    CHECK(last_line(r.out).find("process finished") != std::string::npos);
  }
  SUBCASE("a corrupt bank is an error naming the file, left untouched") {
    const auto file =
        dir.path() / "Ascend910A" / "unified_bank" / "Ascend910A_32_AiCore_schedule.json";
    fs::create_directories(file.parent_path());
    write_text(file, "{\"schema_version\": 1, \"entr");
    const auto r = run({"--model=" + model.string(), "--job_type=2"}, env);
    CHECK(r.code == aoe_tool::exit_bank);
    CHECK(r.err.find(file.string()) != std::string::npos);
    CHECK(aoe::test::read_text(file) == "{\"schema_version\": 1, \"entr");
  }
  SUBCASE("an unwritable bank directory") {
    const auto not_dir = write_text(dir.path() / "cache_is_a_file", "x");
    auto e = env;
    e.erase("TUNE_BANK_PATH");
    e["ASCEND_CACHE_PATH"] = not_dir.string();  // the bank would be <file>/aoe_data
    const auto r = run({"--model=" + model.string(), "--job_type=2"}, e);
    CHECK(r.code == aoe_tool::exit_bank);
    CHECK(r.err.find("cache_is_a_file") != std::string::npos);
  }
  SUBCASE("a bad --tune_ops_file") {
    const auto ops = write_text(dir.path() / "ops.json", "{\"tune_ops_type\": [3]}");
    const auto r =
        run({"--model=" + model.string(), "--job_type=2", "--tune_ops_file=" + ops.string()}, env);
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(r.err.find("/tune_ops_type/0") != std::string::npos);
  }
}

/// The text of the OPAT result file in `dir`, which must exist.
std::string opat_result_text(const fs::path& dir) {
  fs::path result;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().starts_with("aoe_result_opat_")) result = e.path();
  }
  REQUIRE_FALSE(result.empty());
  return aoe::test::read_text(result);
}

/// `aoe` on `model` (OPAT) as a process with its work directory and bank in `dir`, the rest as
/// `p` says (`p.args` after the model and job type).
pid_t spawn_opat(const std::string& binary, const TempDir& dir, const fs::path& model,
                 aoe::test::AoeProcess p) {
  fs::create_directories(dir.path() / "bank");
  p.env["TUNE_BANK_PATH"] = (dir.path() / "bank").string();
  p.env["ASCEND_WORK_PATH"] = dir.path().string();
  p.args.insert(p.args.begin(),
                {"--model=" + model.string(), "--job_type=2", "--progress_bar=off"});
  return aoe::test::spawn_aoe(binary, p);
}

TEST_CASE("aoe (process): stdout a pipe nobody reads is exit 8 with the reason, not SIGPIPE") {
  const std::string binary = aoe::test::aoe_binary();
  if (binary.empty()) {
    aoe::test::skip("AOE_BINARY is not set (the path of the built aoe)");
    return;
  }
  TempDir dir("cli_epipe");
  const fs::path err = dir.path() / "stderr.txt";
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  ::close(pipe_fds[0]);  // no reader from the start: every write to stdout fails with EPIPE
  const pid_t child =
      spawn_opat(binary, dir, fs::path(AOE_TESTS_SOURCE_DIR) / "../examples/models/resnet50.json",
                 {.args = {"--budget=2"},
                  .stdout_fd = pipe_fds[1],
                  .stderr_file = err,
                  // As a shell starts it (an ignored signal stays ignored in exec).
                  .before_exec = [] { ::signal(SIGPIPE, SIG_DFL); }});
  REQUIRE(child > 0);
  ::close(pipe_fds[1]);
  const int code = aoe::test::wait_aoe(child);
  INFO("exit code (minus: killed by that signal) ", code);
  CHECK(code == aoe_tool::exit_output);
  CHECK(aoe::test::read_text(err).find("stdout") != std::string::npos);
  // The job itself finished: its result file says so.
  CHECK(opat_result_text(dir.path()).find("\"tuning successful\"") != std::string::npos);
}

TEST_CASE("aoe (process): a closed stdout is exit 8 before the job; a closed stderr is kept away") {
  const std::string binary = aoe::test::aoe_binary();
  if (binary.empty()) {
    aoe::test::skip("AOE_BINARY is not set (the path of the built aoe)");
    return;
  }
  const fs::path model = fs::path(AOE_TESTS_SOURCE_DIR) / "../examples/models/resnet50.json";
  TempDir dir("cli_closed");
  const fs::path err = dir.path() / "stderr.txt";
  const pid_t closed_out = spawn_opat(
      binary, dir, model,
      {.args = {"--budget=2"}, .stderr_file = err, .before_exec = [] { ::close(STDOUT_FILENO); }});
  REQUIRE(closed_out > 0);
  CHECK(aoe::test::wait_aoe(closed_out) == aoe_tool::exit_output);
  CHECK(aoe::test::read_text(err).find("aoe: stdout is closed") != std::string::npos);
  // Refused before the job: no result file.
  for (const auto& e : fs::directory_iterator(dir.path())) {
    CHECK_FALSE(e.path().filename().string().starts_with("aoe_result_"));
  }

  // With stderr (and stdin) closed the job runs; the bank file opened later must not take
  // descriptor 2 and receive log lines: the bank stays valid JSON.
  TempDir quiet("cli_closed_err");
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t closed_err = spawn_opat(
      binary, quiet, model,
      {.args = {"--budget=2", "--log=info"}, .stdout_fd = pipe_fds[1], .before_exec = [] {
         ::close(STDIN_FILENO);
         ::close(STDERR_FILENO);
       }});
  REQUIRE(closed_err > 0);
  ::close(pipe_fds[1]);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, n);
  ::close(pipe_fds[0]);
  CHECK(aoe::test::wait_aoe(closed_err) == 0);
  CHECK(out.find("process finished") != std::string::npos);
  CHECK(opat_result_text(quiet.path()).find("\"tuning successful\"") != std::string::npos);
  std::size_t banks = 0;
  for (const auto& f : fs::recursive_directory_iterator(quiet.path() / "bank")) {
    if (!f.is_regular_file() || f.path().extension() != ".json") continue;
    ++banks;
    INFO(f.path());
    boost::system::error_code ec;
    (void)boost::json::parse(aoe::test::read_text(f.path()), ec);
    CHECK_FALSE(ec);
  }
  CHECK(banks > 0);
}

TEST_CASE("aoe (process): report files that cannot be written do not hide the job's exit code") {
  const std::string binary = aoe::test::aoe_binary();
  if (binary.empty()) {
    aoe::test::skip("AOE_BINARY is not set (the path of the built aoe)");
    return;
  }
  // Files over 8 KiB cannot be written (EFBIG; SIGXFSZ ignored): the result file, the tuned
  // model and the bank fit, the HTML report (its style sheet alone is larger) does not.
  struct Ended {
    int code = 0;
    std::string err;
    std::string result;
  };
  const auto run_small_files = [&](const std::string& tag, const std::string& model) {
    TempDir dir(tag);
    const fs::path err = dir.path() / "stderr.txt";
    const pid_t child = spawn_opat(binary, dir, write_text(dir.path() / "model.json", model),
                                   {.args = {"--budget=2"}, .stderr_file = err, .before_exec = [] {
                                      ::signal(SIGXFSZ, SIG_IGN);
                                      const rlimit limit{8192, 8192};
                                      ::setrlimit(RLIMIT_FSIZE, &limit);
                                    }});
    REQUIRE(child > 0);
    const int code = aoe::test::wait_aoe(child);
    return Ended{code, aoe::test::read_text(err), opat_result_text(dir.path())};
  };
  SUBCASE("some operators failed: exit 6 stays, the report's failure is a warning") {
    std::string text = small_model;
    text.replace(text.find("\"BiasAdd\""), 9, "\"Frobnicate\"");
    const Ended r = run_small_files("cli_report_failed_ops", text);
    INFO(r.err);
    CHECK(r.code == aoe_tool::exit_ops_failed);
    CHECK(r.err.find("Frobnicate") != std::string::npos);
    CHECK(r.err.find("aoe: warning: --report: cannot write") != std::string::npos);
    CHECK(r.err.find("_report.html") != std::string::npos);
    CHECK(r.result.find("\"tuning failed\"") != std::string::npos);
  }
  SUBCASE("the job succeeded: the report's failure is exit 5") {
    const Ended r = run_small_files("cli_report_failed", small_model);
    INFO(r.err);
    CHECK(r.code == aoe_tool::exit_bank);
    CHECK(r.err.find("aoe: --report: cannot write") != std::string::npos);
    CHECK(r.result.find("\"tuning successful\"") != std::string::npos);
  }
}

TEST_CASE("aoe (process): SIGINT in the middle of a job ends it cleanly") {
  const std::string binary = aoe::test::aoe_binary();
  if (binary.empty()) {
    aoe::test::skip("AOE_BINARY is not set (the path of the built aoe)");
    return;
  }
  TempDir dir("cli_sigint");
  // Many distinct operators, each tuned with a large budget: the job runs for a while.
  std::string tensors = "\"x\": {\"shape\": [64, 512], \"dtype\": \"float16\"}";
  std::string nodes;
  for (int i = 0; i < 40; ++i) {
    const std::string n = std::to_string(i);
    tensors += ", \"w" + n + "\": {\"shape\": [512, " + std::to_string(64 * (i + 1)) +
               "], \"dtype\": \"float16\"}, \"y" + n + "\": {\"shape\": [64, " +
               std::to_string(64 * (i + 1)) + "], \"dtype\": \"float16\"}";
    nodes += std::string(i ? ", " : "") + "{\"name\": \"mm" + n +
             "\", \"type\": \"MatMul\", \"inputs\": [\"x\", \"w" + n + "\"], \"outputs\": [\"y" +
             n + "\"]}";
  }
  const auto model = write_text(dir.path() / "many.json",
                                "{\"format_version\": 1, \"name\": \"many\", \"tensors\": {" +
                                    tensors + "}, \"nodes\": [" + nodes + "]}");
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const int read_end = pipe_fds[0];
  const pid_t child = spawn_opat(binary, dir, model,
                                 {.args = {"--search=random", "--budget=20000"},
                                  .stdout_fd = pipe_fds[1],
                                  .before_exec = [read_end] { ::close(read_end); }});
  REQUIRE(child > 0);
  ::close(pipe_fds[1]);
  // Wait for the first finished operator's line, then interrupt.
  std::string seen;
  char c = 0;
  while (seen.find("[1/40]") == std::string::npos && ::read(pipe_fds[0], &c, 1) == 1) seen += c;
  REQUIRE(seen.find("[1/40]") != std::string::npos);
  ::kill(child, SIGINT);
  while (::read(pipe_fds[0], &c, 1) == 1) seen += c;
  ::close(pipe_fds[0]);
  CHECK(aoe::test::wait_aoe(child) == aoe_tool::exit_interrupted);
  const auto root = boost::json::parse(opat_result_text(dir.path())).as_object();
  const auto& opat = root.begin()->value().as_array()[1].as_object().at("OPAT").as_object();
  CHECK(opat.at("opat_tuning_result").as_string() == "tune tuning incomplete");
  const auto total = opat.at("repo_summary").as_object().at("total_num").as_int64();
  CHECK(total >= 1);
  CHECK(total < 40);
}

}  // namespace tools_aoe_cli_test
