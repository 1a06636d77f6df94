// aoe::write_file_atomically, the one way OpenAOE writes a file: O_EXCL|O_NOFOLLOW temporary
// files under unpredictable names, symbolic-link destinations refused, stale temporary files of
// dead processes removed and those of live ones kept (docs/reliability.md, "Atomic files").
#include "support/temp_dir.hpp"
#include <aoe/io/atomic_file.hpp>

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t count_temporaries(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().find(".aoe-tmp.") != std::string::npos) ++n;
  }
  return n;
}

// A pid that existed and no longer does (a child that exited and was reaped).
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return static_cast<long>(child);
}

std::string temp_name(const std::string& target, long pid, const std::string& host) {
  return "." + target + ".aoe-tmp." + std::to_string(pid) + "." + host + ".0123456789abcdef";
}

}  // namespace

TEST_CASE("atomic file: writes, replaces, keeps the permission bits, leaves no temporary") {
  aoe::test::TempDir dir("atomic_write");
  const auto file = dir.path() / "out.json";
  REQUIRE(aoe::write_file_atomically(file, "{\"a\": 1}\n").has_value());
  CHECK(read(file) == "{\"a\": 1}\n");
  fs::permissions(file, fs::perms(0640));
  REQUIRE(aoe::write_file_atomically(file, "{}", false).has_value());
  CHECK(read(file) == "{}");
  CHECK((fs::status(file).permissions() & fs::perms::all) == fs::perms(0640));
  CHECK(count_temporaries(dir.path()) == 0);
}

TEST_CASE("atomic file: a destination that is a symbolic link is refused, the link kept") {
  aoe::test::TempDir dir("atomic_link");
  const auto victim = dir.write("victim.txt", "precious");
  const auto link = dir.path() / "bank.json";
  fs::create_symlink(victim, link);
  const auto r = aoe::write_file_atomically(link, "{}");
  REQUIRE(!r.has_value());
  CHECK(r.error().message.find("refusing to write " + link.string()) != std::string::npos);
  CHECK(r.error().message.find("symbolic link (to " + victim + ")") != std::string::npos);
  CHECK(fs::is_symlink(link));
  CHECK(read(victim) == "precious");

  const auto loop = dir.path() / "loop.json";
  fs::create_symlink(loop, loop);  // a link to itself: ELOOP when followed
  const auto l = aoe::write_file_atomically(loop, "{}");
  REQUIRE(!l.has_value());
  CHECK(l.error().message.find("symbolic link") != std::string::npos);
  CHECK(fs::is_symlink(loop));

  fs::create_directory(dir.path() / "sub");
  const auto d = aoe::write_file_atomically(dir.path() / "sub", "{}");
  REQUIRE(!d.has_value());
  CHECK(d.error().message.find("is a directory") != std::string::npos);
  CHECK(count_temporaries(dir.path()) == 0);
}

TEST_CASE("atomic file: links planted at the old predictable temporary names are never followed") {
  aoe::test::TempDir dir("atomic_plant");
  const auto victim = dir.write("victim.txt", "precious");
  const auto file = dir.path() / "result.json";
  // Names the writer of 0.5 used (<file>.tmp.<pid>.<n>) and a guess at the new pattern.
  for (int n = 0; n < 8; ++n) {
    fs::create_symlink(
        victim, file.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(n));
  }
  fs::create_symlink(
      victim, dir.path() / temp_name("result.json", ::getpid(), aoe::detail::atomic_temp_host()));
  for (int i = 0; i < 8; ++i) REQUIRE(aoe::write_file_atomically(file, "{\"i\": 0}").has_value());
  CHECK(read(victim) == "precious");
  CHECK(read(file) == "{\"i\": 0}");
}

TEST_CASE("atomic file: temporary names are unpredictable and say whose they are") {
  const auto a = aoe::detail::atomic_temp_random();
  const auto b = aoe::detail::atomic_temp_random();
  CHECK(a.size() == 16);
  CHECK(a != b);
  const auto owner = aoe::detail::atomic_temp_owner(temp_name("x.json", 4242, "node-1"));
  REQUIRE(owner);
  CHECK(owner->pid == 4242);
  CHECK(owner->host == "node-1");
  CHECK(!aoe::detail::atomic_temp_owner("x.json"));
  CHECK(!aoe::detail::atomic_temp_owner("x.json.tmp.4242.0"));
  CHECK(!aoe::detail::atomic_temp_owner(".x.aoe-tmp.42a.h.0123456789abcdef"));
  CHECK(!aoe::detail::atomic_temp_owner(".x.aoe-tmp.42.h.0123"));
}

TEST_CASE("atomic file: stale temporary files of dead processes go, a live process's stay") {
  aoe::test::TempDir dir("atomic_stale");
  const auto& host = aoe::detail::atomic_temp_host();
  const long dead = dead_pid();
  const auto stale = dir.write(temp_name("bank.json", dead, host), "half");
  const auto live = dir.write(temp_name("bank.json", static_cast<long>(::getppid()), host), "w");
  const auto other_host = dir.write(temp_name("bank.json", dead, host + "x"), "elsewhere");
  const auto mine = dir.write(temp_name("bank.json", static_cast<long>(::getpid()), host), "me");
  const auto user = dir.write("bank.json.tmp.1.2", "a user's file");
  CHECK(aoe::remove_stale_temporary_files(dir.path()) == 1);
  CHECK(!fs::exists(stale));
  CHECK(fs::exists(live));
  CHECK(fs::exists(other_host));
  CHECK(fs::exists(mine));
  CHECK(fs::exists(user));

  // The first write of a process in a directory removes them too.
  aoe::test::TempDir dir2("atomic_stale_write");
  const auto stale2 = dir2.write(temp_name("r.json", dead_pid(), host), "half");
  REQUIRE(aoe::write_file_atomically(dir2.path() / "r.json", "{}").has_value());
  CHECK(!fs::exists(stale2));
}

TEST_CASE("atomic file: a missing directory is an error naming the file") {
  aoe::test::TempDir dir("atomic_missing");
  const auto file = dir.path() / "no" / "such" / "out.json";
  const auto r = aoe::write_file_atomically(file, "{}");
  REQUIRE(!r.has_value());
  CHECK(r.error().message.find("cannot write " + file.string()) != std::string::npos);
  CHECK(r.error().message.find("expected an existing, writable directory") != std::string::npos);
}
