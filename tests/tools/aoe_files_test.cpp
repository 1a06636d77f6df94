// `aoe` and its files (docs/reliability.md, "Atomic files" and "Locking"): two Unix users share
// one bank; a held bank lock fails after TUNE_BANK_LOCK_TIMEOUT naming the lock file; a foreign
// file in CANN's built-in bank is a warning, not exit 5; --output and bank files that are
// symbolic links are refused and left as they are.
#include "cli.hpp"
#include "run_aoe.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"
#include <aoe/repo/knowledge_bank.hpp>

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace tools_aoe_files_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

std::string models_dir() { return std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/"; }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const aoe::BankScope scope{"Ascend910A", 32};

fs::path schedule_file(const fs::path& bank) {
  return aoe::KnowledgeBank::file_for(bank, scope, aoe::KnowledgeKind::schedule);
}

std::map<std::string, std::string> env_for(const fs::path& dir) {
  return {{"TUNE_BANK_PATH", (dir / "bank").string()},
          {"ASCEND_WORK_PATH", (dir / "work").string()}};
}

// Runs the aoe binary as uid:gid (setpriv, no supplementary groups) with `env`; the exit code.
int run_as(unsigned uid, unsigned gid, const std::vector<std::string>& args,
           const std::map<std::string, std::string>& env, const fs::path& log) {
  std::vector<std::string> argv{"/usr/bin/setpriv",
                                "--reuid=" + std::to_string(uid),
                                "--regid=" + std::to_string(gid),
                                "--clear-groups",
                                "--",
                                AOE_TOOL_AOE_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> envs{"PATH=/usr/bin:/bin"};
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  const pid_t child = ::fork();
  if (child == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    std::vector<char*> a;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    std::vector<char*> e;
    for (auto& s : envs) e.push_back(s.data());
    e.push_back(nullptr);
    ::execve(a[0], a.data(), e.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Whether a user with no relation to the files (neither owner nor group) can open `file` for
// `bits` (S_IROTH, S_IXOTH) through every directory above it.
bool others_can(const fs::path& file, mode_t bits) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || (st.st_mode & bits) != bits) return false;
  for (auto dir = fs::absolute(file).parent_path(); dir != dir.root_path();
       dir = dir.parent_path()) {
    if (::stat(dir.c_str(), &st) != 0 || (st.st_mode & S_IXOTH) == 0) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("aoe files: a second Unix user runs OPAT on a bank the first one created") {
  if (::geteuid() != 0) {
    aoe::test::skip("needs root to run as two other users (setpriv)");
    return;
  }
  if (!fs::exists("/usr/bin/setpriv")) {
    aoe::test::skip("setpriv (util-linux) not found");
    return;
  }
  if (!others_can(AOE_TOOL_AOE_PATH, S_IROTH | S_IXOTH) ||
      !others_can(models_dir() + "resnet50.json", S_IROTH)) {
    aoe::test::skip("the aoe binary or examples/models cannot be reached by other users here");
    return;
  }
  aoe::test::TempDir dir("files_users");
  fs::permissions(dir.path(), fs::perms(0755));
  if (!others_can(dir.path(), S_IXOTH)) {
    aoe::test::skip("the temporary directory cannot be reached by other users (TMPDIR)");
    return;
  }
  // The team's bank root: group 60000, set-group-ID, group-writable (docs: "A shared bank").
  const auto bank = dir.path() / "bank";
  fs::create_directories(bank);
  REQUIRE(::chown(bank.c_str(), 0, 60000) == 0);
  fs::permissions(bank, fs::perms(02775));
  for (const char* w : {"work_a", "work_b"}) {
    fs::create_directories(dir.path() / w);
    fs::permissions(dir.path() / w, fs::perms(0777));
  }
  const mode_t old = ::umask(022);  // the users' usual umask
  const auto a = run_as(
      60001, 60000,
      {"--model=" + models_dir() + "resnet50.json", "--job_type=2", "--budget=8", "--log=warning"},
      {{"TUNE_BANK_PATH", bank.string()}, {"ASCEND_WORK_PATH", (dir.path() / "work_a").string()}},
      dir.path() / "a.log");
  CHECK_MESSAGE(a == 0, read(dir.path() / "a.log"));
  aoe::KnowledgeBank reader({.custom_root = bank});
  const auto after_a = reader.entries(scope, aoe::KnowledgeKind::schedule);
  REQUIRE(after_a.has_value());
  REQUIRE(!after_a->empty());
  struct stat st {};
  REQUIRE(::stat(schedule_file(bank).c_str(), &st) == 0);
  CHECK(st.st_uid == 60001);  // the first user's file

  const auto b = run_as(
      60002, 60000,
      {"--model=" + models_dir() + "mobilenet_v2.json", "--job_type=2", "--budget=8",
       "--log=warning"},
      {{"TUNE_BANK_PATH", bank.string()}, {"ASCEND_WORK_PATH", (dir.path() / "work_b").string()}},
      dir.path() / "b.log");
  ::umask(old);
  CHECK_MESSAGE(b == 0, read(dir.path() / "b.log"));
  const auto after_b = reader.entries(scope, aoe::KnowledgeKind::schedule);
  REQUIRE(after_b.has_value());
  CHECK(after_b->size() > after_a->size());  // the second user added records
  for (const auto& [k, r] : *after_a) CHECK(after_b->count(k) == 1);  // and lost none
  REQUIRE(::stat(schedule_file(bank).c_str(), &st) == 0);
  CHECK(st.st_uid == 60002);
  CHECK(st.st_gid == 60000);
}

TEST_CASE("aoe files: a held bank lock fails after TUNE_BANK_LOCK_TIMEOUT, naming the lock") {
  aoe::test::TempDir dir("files_lock");
  fs::create_directories(dir.path() / "bank");
  auto env = env_for(dir.path());
  const auto model = models_dir() + "resnet50.json";
  const auto first = aoe::test::run_aoe({"--model=" + model, "--job_type=2", "--budget=4"}, env);
  REQUIRE(first.code == aoe_tool::exit_success);
  const auto lock = schedule_file(dir.path() / "bank").string() + ".lock";
  const int holder = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);  // a hung holder
  REQUIRE(holder >= 0);
  REQUIRE(::flock(holder, LOCK_EX) == 0);
  env["TUNE_BANK_LOCK_TIMEOUT"] = "1";
  const auto r = aoe::test::run_aoe({"--model=" + model, "--job_type=2", "--budget=4"}, env);
  ::close(holder);
  CHECK(r.code == aoe_tool::exit_bank);
  CHECK(r.err.find("lock file " + lock + " is held by another process; gave up after 1 s") !=
        std::string::npos);
  env["TUNE_BANK_LOCK_TIMEOUT"] = "soon";
  const auto bad = aoe::test::run_aoe({"--model=" + model, "--job_type=2"}, env);
  CHECK(bad.code == aoe_tool::exit_environment);
  CHECK(bad.err.find("TUNE_BANK_LOCK_TIMEOUT='soon'") != std::string::npos);
}

TEST_CASE("aoe files: a foreign file in CANN's built-in bank is a warning and exit 0") {
  aoe::test::TempDir dir("files_builtin");
  fs::create_directories(dir.path() / "bank");
  auto env = env_for(dir.path());
  env["ASCEND_OPP_PATH"] = (dir.path() / "opp").string();
  const auto foreign = schedule_file(dir.path() / "opp" / "built-in" / "data" / "op");
  fs::create_directories(foreign.parent_path());
  std::ofstream(foreign, std::ios::binary) << "\x01\x02 CANN's own format";
  const auto r = aoe::test::run_aoe(
      {"--model=" + models_dir() + "resnet50.json", "--job_type=2", "--budget=4"}, env);
  CHECK(r.code == aoe_tool::exit_success);
  CHECK(r.err.find("aoe: warning: knowledge bank: skipping built-in bank file " +
                   foreign.string()) != std::string::npos);
  // One warning, not one per operator.
  CHECK(r.err.find("skipping built-in", r.err.find("skipping built-in") + 1) == std::string::npos);
}

TEST_CASE("aoe files: --output and bank files that are symbolic links are refused, kept") {
  aoe::test::TempDir dir("files_links");
  fs::create_directories(dir.path() / "bank");
  const auto env = env_for(dir.path());
  const auto model = models_dir() + "resnet50.json";
  const auto victim = dir.write("victim.txt", "precious");
  const auto link = dir.path() / "tuned.json";
  fs::create_symlink(victim, link);
  const auto r = aoe::test::run_aoe(
      {"--model=" + model, "--job_type=2", "--budget=4", "--output=" + link.string()}, env);
  CHECK(r.code != aoe_tool::exit_success);
  CHECK(r.err.find("refusing to write " + link.string() + ": it is a symbolic link") !=
        std::string::npos);
  CHECK(read(victim) == "precious");
  CHECK(fs::is_symlink(link));

  const auto bank_file = schedule_file(dir.path() / "bank");
  fs::create_directories(bank_file.parent_path());
  fs::remove(bank_file);  // the run above stored its operators before the output was refused
  fs::create_symlink(bank_file, bank_file);  // a loop: never "empty", never overwritten
  const auto loop = aoe::test::run_aoe({"--model=" + model, "--job_type=2", "--budget=4"}, env);
  CHECK(loop.code == aoe_tool::exit_bank);
  CHECK(loop.err.find(bank_file.string()) != std::string::npos);
  CHECK(fs::is_symlink(bank_file));
}

}  // namespace tools_aoe_files_test
