// `aoe` on hostile input (issue #12), in-process: each bad input is a named error with its exit
// code (docs/cli.md#exit-codes), never a crash, a hang or a file outside its directory. The
// inputs are small and written here.
#include "cli.hpp"
#include "command.hpp"
#include "run_aoe.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <streambuf>
#include <string>
#include <tuple>
#include <vector>

namespace tools_aoe_hostile_input_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

using aoe::test::TempDir;

/// The job's environment: bank and work directory in `dir`, one measurement thread.
std::map<std::string, std::string> env_of(const TempDir& dir) {
  auto env = dir.job_env();
  env["TUNING_PARALLEL_NUM"] = "1";
  return env;
}

/// One Relu on a [256, 256] tensor; the name, shape and attributes can be replaced.
std::string model(const std::string& name = R"("m")", const std::string& shape = "[256, 256]",
                  const std::string& type = "Relu", const std::string& attributes = "{}") {
  return R"({"format_version": 1, "name": )" + name + R"(, "tensors": {
    "x": {"shape": )" +
         shape + R"(, "dtype": "float16"},
    "y": {"shape": )" +
         shape + R"(, "dtype": "float16"}},
    "nodes": [{"name": "op", "type": ")" +
         type + R"(", "inputs": ["x"], "outputs": ["y"],
               "attributes": )" +
         attributes + "}]}";
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

/// Every regular file under `root`, relative to it.
std::set<std::string> files_under(const fs::path& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), root).string());
  }
  return out;
}

/// A stream buffer that refuses every write, as stdout on /dev/full does.
struct FullBuffer : std::streambuf {
  int overflow(int /*c*/) override { return traits_type::eof(); }
  std::streamsize xsputn(const char* /*s*/, std::streamsize /*n*/) override { return 0; }
};

}  // namespace

TEST_CASE("aoe hostile: --seed is an integer in [0, 2^64-1], else a flag error (exit 2)") {
  for (const std::string seed :
       {"-1", "99999999999999999999999", "18446744073709551616", "1e3", "0x10", " 7"}) {
    CAPTURE(seed);
    const auto r = aoe::test::run_aoe({"--model=none.json", "--job_type=2", "--seed=" + seed}, {});
    CHECK(r.code == aoe_tool::exit_usage);
    CHECK(has(r.err, "--seed=" + seed + ": expected an integer in [0, 18446744073709551615]"));
  }
}

/// aoe's outputs (tuned model, reports) directly in `dir` that were written at or after `since`.
std::vector<std::string> outputs_since(const fs::path& dir, fs::file_time_type since) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    const bool output = n.ends_with("_tune.json") || n.ends_with("_report.html") ||
                        n.ends_with("_trace.json") || n.ends_with("_op_summary.csv");
    std::error_code tec;
    if (output && e.is_regular_file(tec) && e.last_write_time(tec) >= since) {
      out.push_back(e.path().string());
    }
  }
  return out;
}

TEST_CASE("aoe hostile: a model name never leads a file out of the workspace") {
  // The work directory lies five levels below the test's directory, so that a name climbing
  // up to five levels would land where files_under() sees it; "/" and deeper climbs would
  // land in / or the temporary directory, which are checked too.
  const std::vector<std::string> names{
      R"("/")",  R"("../../x")",          R"("a/../../b")",
      R"("..")", R"("../../../../../c")", R"("../../../../../../../../d")"};
  for (const std::string& name : names) {
    CAPTURE(name);
    const TempDir dir("name");
    const auto since = fs::file_time_type::clock::now() - std::chrono::seconds(2);
    const auto file = dir.write("model.json", model(name));
    auto env = env_of(dir);
    const fs::path work = dir.path() / "l1" / "l2" / "l3" / "l4" / "work";
    env["ASCEND_WORK_PATH"] = work.string();
    const auto r = aoe::test::run_aoe({"--model=" + file, "--job_type=2", "--budget=2"}, env);
    INFO(r.err);
    REQUIRE(r.code == aoe_tool::exit_success);
    // Everything aoe wrote is under work/ (results, reports, workspace) or bank/; a report is
    // named after the sanitised model name, directly in work/.
    const std::string w = "l1/l2/l3/l4/work/";
    const auto report = [&](const std::string& f) {
      return f.starts_with(w) && f.find('/', w.size()) == std::string::npos &&
             (f.ends_with("_trace.json") || f.ends_with("_op_summary.csv") ||
              f.ends_with("_report.html"));
    };
    for (const auto& f : files_under(dir.path())) {
      CAPTURE(f);
      CHECK((f == "model.json" || f.starts_with(w + "aoe_workspace/") ||
             f.starts_with(w + "aoe_result_") || report(f) || f.starts_with("bank/")));
    }
    for (const fs::path& outside : {fs::path("/"), fs::temp_directory_path()}) {
      CAPTURE(outside);
      CHECK(outputs_since(outside, since).empty());
    }
    bool tuned = false;
    for (const auto& f : files_under(work / "aoe_workspace")) {
      tuned = tuned || f.ends_with("_tune.json");
    }
    CHECK(tuned);
  }
}

TEST_CASE("aoe hostile: control bytes of a model's name are escaped on the console") {
  const TempDir dir("nul");
  const auto file = dir.write("model.json", model(R"("ti\u0000ny\u001b[2J")"));
  const auto r = aoe::test::run_aoe({"--model=" + file, "--job_type=2", "--budget=2"}, env_of(dir));
  INFO(r.err);
  REQUIRE(r.code == aoe_tool::exit_success);
  CHECK(has(r.out, "ti\\x00ny\\x1b[2J process finished"));
  CHECK(r.out.find('\0') == std::string::npos);
  CHECK(r.out.find('\x1b') == std::string::npos);
  // The same name in an error on stderr: GDAT on a graph with no trainable parameters (exit 3).
  const auto gdat = aoe::test::run_aoe({"--model=" + file, "--job_type=4"}, env_of(dir));
  CHECK(gdat.code == aoe_tool::exit_input);
  CHECK(has(gdat.err, "ti\\x00ny\\x1b[2J: no trainable parameters"));
  CHECK(gdat.err.find('\0') == std::string::npos);
  CHECK(aoe_tool::console_text(std::string("a\0b\n\tc\x7f\xc3\xa9", 9)) ==
        "a\\x00b\\x0a\\x09c\\x7f\xc3\xa9");
  CHECK(aoe_tool::console_text("line 1\n\tline 2", true) == "line 1\n\tline 2");
}

TEST_CASE("aoe hostile: paths that are not regular files say what they are") {
  const TempDir dir("paths");
  SUBCASE("a model path that is a directory (exit 3)") {
    const auto r =
        aoe::test::run_aoe({"--model=" + dir.path().string(), "--job_type=2"}, env_of(dir));
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(has(r.err, "is a directory, not a regular file"));
  }
  SUBCASE("a model path that is a FIFO does not block (exit 3)") {
    const auto fifo = (dir.path() / "pipe").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    for (const std::string job : {"1", "2", "4"}) {
      const auto r = aoe::test::run_aoe({"--model=" + fifo, "--job_type=" + job}, env_of(dir));
      CHECK(r.code == aoe_tool::exit_input);
      CHECK(has(r.err, "is a FIFO (named pipe), not a regular file"));
    }
  }
  SUBCASE("a bank file that is a directory (exit 5)") {
    const auto bank_file =
        dir.path() / "bank" / "Ascend910A" / "unified_bank" / "Ascend910A_32_AiCore_schedule.json";
    fs::create_directories(bank_file);
    const auto file = dir.write("model.json", model());
    const auto r =
        aoe::test::run_aoe({"--model=" + file, "--job_type=2", "--budget=2"}, env_of(dir));
    CHECK(r.code == aoe_tool::exit_bank);
    CHECK(has(r.err, "knowledge bank: " + bank_file.string() + ": is a directory"));
  }
  SUBCASE("over AOE_MAX_INPUT_BYTES (exit 3); a bad limit is an environment error (exit 4)") {
    const auto file = dir.write("model.json", model());
    auto env = env_of(dir);
    env["AOE_MAX_INPUT_BYTES"] = "100";
    auto r = aoe::test::run_aoe({"--model=" + file, "--job_type=2"}, env);
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(has(r.err, "bytes is over the input size limit of 100 bytes"));
    env["AOE_MAX_INPUT_BYTES"] = "-5";
    r = aoe::test::run_aoe({"--model=" + file, "--job_type=2"}, env);
    CHECK(r.code == aoe_tool::exit_environment);
    CHECK(has(r.err, "AOE_MAX_INPUT_BYTES='-5'"));
  }
}

TEST_CASE("aoe hostile: counts that overflow are input errors in all three jobs (exit 3)") {
  const TempDir dir("overflow");
  const auto big = dir.write("big.json", model(R"("m")", "[4294967296, 4294967296]"));
  const auto max = dir.write("max.json", model(R"("m")", "[9223372036854775807]"));
  for (const std::string job : {"1", "2", "4"}) {
    CAPTURE(job);
    auto r = aoe::test::run_aoe({"--model=" + big, "--job_type=" + job}, env_of(dir));
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(has(r.err, "/tensors/x/shape: the element count overflows a 64-bit integer"));
    r = aoe::test::run_aoe({"--model=" + max, "--job_type=" + job}, env_of(dir));
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(has(r.err, "over the size limit of 2^40 bytes"));
  }
}

TEST_CASE("aoe hostile: non-finite and out-of-range numbers are input errors (exit 3)") {
  const TempDir dir("numbers");
  const auto inf_attr =
      dir.write("inf.json", model(R"("m")", "[256, 256]", "Relu", R"({"alpha": 1e999})"));
  auto r = aoe::test::run_aoe({"--model=" + inf_attr, "--job_type=2"}, env_of(dir));
  CHECK(r.code == aoe_tool::exit_input);
  CHECK(has(r.err, "/nodes/0/attributes/alpha: a number out of range"));
  const std::string profile =
      R"({"name": "p", "gradients": [{"backward_time_us": TIME, "bytes": BYTES}]})";
  const auto with = [&](const std::string& time, const std::string& bytes) {
    std::string text = profile;
    text.replace(text.find("TIME"), 4, time);
    text.replace(text.find("BYTES"), 5, bytes);
    return dir.write("profile.json", text);
  };
  for (const auto& [time, bytes, what] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"1e999", "8", "a number out of range"},
           {"1e300", "8", "up to 1e15"},
           {"1", "9223372036854775807", "expected at most 2^40 bytes"}}) {
    CAPTURE(time);
    r = aoe::test::run_aoe({"--model=" + with(time, bytes), "--job_type=4"}, env_of(dir));
    CHECK(r.code == aoe_tool::exit_input);
    CHECK(has(r.err, what));
  }
  const auto dup = dir.write("dup.json", R"({"name": "p", "name": "q", "gradients": []})");
  r = aoe::test::run_aoe({"--model=" + dup, "--job_type=4"}, env_of(dir));
  CHECK(r.code == aoe_tool::exit_input);
  CHECK(has(r.err, R"(duplicate key "name")"));
}

TEST_CASE("aoe hostile: every failure reason reaches stderr, whatever --log says") {
  const TempDir dir("stderr");
  const auto file = dir.write(
      "ln.json", model(R"("m")", "[256, 256]", "LayerNorm", R"({"begin_norm_axis": 100})"));
  for (const std::string log : {"null", "error", "info"}) {
    CAPTURE(log);
    const auto r = aoe::test::run_aoe(
        {"--model=" + file, "--job_type=2", "--budget=2", "--log=" + log}, env_of(dir));
    CHECK(r.code == aoe_tool::exit_ops_failed);
    CHECK(has(r.err, "attribute 'begin_norm_axis' = 100 is out of range for a rank-2 input"));
  }
}

TEST_CASE("aoe hostile: a failed write to stdout is exit 8") {
  const TempDir dir("stdout");
  const auto file = dir.write("model.json", model());
  std::vector<const char*> argv{"aoe", "--job_type=2", "--budget=2"};
  const std::string flag = "--model=" + file;
  argv.push_back(flag.c_str());
  const auto env = env_of(dir);
  const aoe::GetEnv getenv = [&env](const char* name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  FullBuffer full;
  std::ostream out(&full);
  std::ostringstream err;
  std::atomic<bool> stop{false};
  const int code =
      aoe_tool::run(static_cast<int>(argv.size()), argv.data(), getenv, out, err, &stop, false);
  CHECK(code == aoe_tool::exit_output);
  CHECK(has(err.str(), "aoe: cannot write to stdout"));
}

TEST_CASE("aoe hostile: a deleted working directory is an environment error (exit 4)") {
  const fs::path before = fs::current_path();
  const fs::path gone =
      fs::temp_directory_path() / ("aoe_hostile_cwd_" + std::to_string(::getpid()));
  fs::create_directories(gone);
  REQUIRE(::chdir(gone.c_str()) == 0);
  fs::remove(gone);
  const auto r = aoe::test::run_aoe({"--model=m.json", "--job_type=2"}, {});
  REQUIRE(::chdir(before.c_str()) == 0);
  CHECK(r.code == aoe_tool::exit_environment);
  CHECK(has(r.err, "the working directory cannot be resolved"));
}

}  // namespace tools_aoe_hostile_input_test
