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

#include <csignal>
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

TEST_CASE("aoe files: a bank directory the user cannot write fails at the start, not later") {
  // The lock files exist (an earlier run made them), so taking them succeeds: only creating the
  // new bank file beside them can tell, and the job must try that before it tunes anything.
  if (::geteuid() != 0) {
    aoe::test::skip("needs root to run as another user (setpriv)");
    return;
  }
  if (!fs::exists("/usr/bin/setpriv")) {
    aoe::test::skip("setpriv (util-linux) not found");
    return;
  }
  if (!others_can(AOE_TOOL_AOE_PATH, S_IROTH | S_IXOTH) ||
      !others_can(models_dir() + "mobilenet_v2.json", S_IROTH)) {
    aoe::test::skip("the aoe binary or examples/models cannot be reached by other users here");
    return;
  }
  aoe::test::TempDir dir("files_unwritable");
  fs::permissions(dir.path(), fs::perms(0755));
  if (!others_can(dir.path(), S_IXOTH)) {
    aoe::test::skip("the temporary directory cannot be reached by other users (TMPDIR)");
    return;
  }
  const auto bank = dir.path() / "bank";
  fs::create_directories(bank);
  const mode_t old = ::umask(022);  // root's bank: others may read it, not write it
  const auto first = aoe::test::run_aoe(
      {"--model=" + models_dir() + "mobilenet_v2.json", "--job_type=2", "--budget=4"},
      {{"TUNE_BANK_PATH", bank.string()}, {"ASCEND_WORK_PATH", (dir.path() / "work").string()}});
  ::umask(old);
  REQUIRE(first.code == aoe_tool::exit_success);
  const std::string before = read(schedule_file(bank));
  REQUIRE(fs::exists(schedule_file(bank).string() + ".lock"));
  fs::create_directories(dir.path() / "work_user");
  fs::permissions(dir.path() / "work_user", fs::perms(0777));
  // REPEAT_TUNE: every operator is tuned again, and the first one found faster is stored; before
  // the check created a file, the job tuned 8 operators of mobilenet_v2 before that store failed.
  const auto code = run_as(60001, 60000,
                           {"--model=" + models_dir() + "mobilenet_v2.json", "--job_type=2",
                            "--budget=8", "--log=debug"},
                           {{"TUNE_BANK_PATH", bank.string()},
                            {"ASCEND_WORK_PATH", (dir.path() / "work_user").string()},
                            {"REPEAT_TUNE", "True"}},
                           dir.path() / "user.log");
  const std::string log = read(dir.path() / "user.log");
  INFO(log);
  CHECK(code == aoe_tool::exit_bank);
  CHECK(log.find("cannot create a temporary file in " + schedule_file(bank).parent_path().string() +
                 ": Permission denied") != std::string::npos);
  CHECK(log.find("[1/") == std::string::npos);  // no operator was tuned first
  CHECK(read(schedule_file(bank)) == before);
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

TEST_CASE("aoe files: a lock whose holder was killed is free at once") {
  // The kernel drops a flock when its holder ends, however it ends (docs/reliability.md, "The
  // bank on a network filesystem"): a holder killed with SIGKILL leaves nothing to wait for.
  aoe::test::TempDir dir("files_dead_holder");
  fs::create_directories(dir.path() / "bank");
  auto env = env_for(dir.path());
  const auto model = models_dir() + "resnet50.json";
  REQUIRE(aoe::test::run_aoe({"--model=" + model, "--job_type=2", "--budget=4"}, env).code ==
          aoe_tool::exit_success);
  const auto lock = schedule_file(dir.path() / "bank").string() + ".lock";
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t holder = ::fork();
  if (holder == 0) {
    const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
    const char ok = (fd >= 0 && ::flock(fd, LOCK_EX) == 0) ? '1' : '0';
    if (::write(ready[1], &ok, 1) != 1) ::_exit(1);
    for (;;) ::pause();  // holds the lock until it is killed
  }
  ::close(ready[1]);
  char ok = '0';
  REQUIRE(::read(ready[0], &ok, 1) == 1);
  ::close(ready[0]);
  REQUIRE(ok == '1');
  const int probe = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(probe >= 0);
  CHECK(::flock(probe, LOCK_EX | LOCK_NB) != 0);  // held
  REQUIRE(::kill(holder, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(holder, &status, 0) == holder);  // reaped: its descriptors are closed
  CHECK(::flock(probe, LOCK_EX | LOCK_NB) == 0);
  ::close(probe);
  env["TUNE_BANK_LOCK_TIMEOUT"] = "0";  // one try: the lock must be free now
  env["REPEAT_TUNE"] = "True";
  const auto r = aoe::test::run_aoe({"--model=" + model, "--job_type=2", "--budget=4"}, env);
  CHECK_MESSAGE(r.code == aoe_tool::exit_success, r.err);
}

TEST_CASE("aoe files: a bank on another file system than the work directory") {
  // Every bank file is written through a temporary file in its own directory, never in the work
  // directory or TMPDIR, so nothing is renamed across file systems (which rename refuses, EXDEV).
  aoe::test::TempDir dir("files_other_fs");
  struct stat shm {};
  struct stat tmp {};
  if (::stat("/dev/shm", &shm) != 0 || ::stat(dir.path().c_str(), &tmp) != 0 ||
      shm.st_dev == tmp.st_dev) {
    aoe::test::skip("no /dev/shm on another file system than the temporary directory");
    return;
  }
  const fs::path bank = "/dev/shm/aoe_test_bank_" + std::to_string(::getpid());
  fs::remove_all(bank);
  fs::create_directories(bank);
  const std::map<std::string, std::string> env{
      {"TUNE_BANK_PATH", bank.string()}, {"ASCEND_WORK_PATH", (dir.path() / "work").string()}};
  const auto model = models_dir() + "resnet50.json";
  for (const std::string job : {"2", "1", "4"}) {
    CAPTURE(job);
    const auto r = aoe::test::run_aoe({"--model=" + model, "--job_type=" + job, "--budget=4"}, env);
    CHECK_MESSAGE(r.code == aoe_tool::exit_success, r.err);
    const auto again =
        aoe::test::run_aoe({"--model=" + model, "--job_type=" + job, "--budget=4"}, env);
    CHECK_MESSAGE(again.code == aoe_tool::exit_success, again.err);
    CHECK(again.out.find("bank hit") != std::string::npos);
  }
  aoe::KnowledgeBank reader({.custom_root = bank});
  const auto entries = reader.entries(scope, aoe::KnowledgeKind::schedule);
  REQUIRE(entries.has_value());
  CHECK(!entries->empty());
  CHECK(fs::exists(bank / "Ascend910A_gradient_fusion.json"));
  std::size_t temporaries = 0;
  for (const auto& e : fs::recursive_directory_iterator(bank)) {
    temporaries += e.path().filename().string().find(".aoe-tmp.") != std::string::npos ? 1 : 0;
  }
  CHECK(temporaries == 0);
  fs::remove_all(bank);
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
