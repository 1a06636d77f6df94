// aoe::write_file_atomically, the one way OpenAOE writes a file: O_EXCL|O_NOFOLLOW temporary
// files under unpredictable names, symbolic-link destinations refused, stale temporary files of
// dead processes removed and those of live ones kept, content given whole or written by a fill
// in pieces, and a fill or a write that fails leaving the target as it was and no temporary
// file (docs/reliability.md, "Atomic files").
#include "support/temp_dir.hpp"
#include <aoe/io/atomic_file.hpp>

#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

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

namespace {

// A fill that writes `text` in pieces of the sizes of `pieces`, in turn (a piece of 1 is a
// push_back), until the text is written.
aoe::Result<void> fill_in_pieces(aoe::AtomicFileSink& out, std::string_view text,
                                 const std::vector<std::size_t>& pieces) {
  for (std::size_t i = 0; !text.empty(); ++i) {
    const std::size_t n = std::min(pieces[i % pieces.size()], text.size());
    if (n == 1) {
      out.push_back(text.front());
    } else {
      out.append(text.substr(0, n));
    }
    text.remove_prefix(n);
  }
  return {};
}

std::string pattern(std::size_t bytes) {
  std::string s(bytes, '\0');
  for (std::size_t i = 0; i < bytes; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 4099) % 26);
  return s;
}

// RLIMIT_FSIZE lowered (a write past it fails with EFBIG, SIGXFSZ ignored) for a scope.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit r = old_;
    r.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &r);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    ::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

}  // namespace

TEST_CASE("atomic file: a fill writes pieces of any size, the bytes of the text form") {
  aoe::test::TempDir dir("atomic_fill");
  const std::string text = pattern(3 * aoe::AtomicFileSink::chunk_bytes + 12345);
  const auto whole = dir.path() / "whole.json";
  REQUIRE(aoe::write_file_atomically(whole, text).has_value());
  CHECK(read(whole) == text);
  const std::vector<std::vector<std::size_t>> ways{
      {1}, {7, 1, 4096}, {aoe::AtomicFileSink::chunk_bytes - 1, 2, 1}, {2500000, 3, 1}};
  for (const auto& pieces : ways) {
    const auto file = dir.path() / "pieces.json";
    REQUIRE(aoe::write_file_atomically(file, [&](aoe::AtomicFileSink& out) {
              return fill_in_pieces(out, text, pieces);
            }).has_value());
    CHECK(read(file) == text);
  }
  const auto empty = dir.path() / "empty.json";
  REQUIRE(aoe::write_file_atomically(empty, [](aoe::AtomicFileSink&) -> aoe::Result<void> {
            return {};
          }).has_value());
  CHECK(fs::file_size(empty) == 0);
  CHECK(count_temporaries(dir.path()) == 0);
}

TEST_CASE("atomic file: a fill that fails midway leaves the target and no temporary file") {
  aoe::test::TempDir dir("atomic_fill_fails");
  const auto file = dir.write("model.json", "old");
  const std::string text = pattern(2 * aoe::AtomicFileSink::chunk_bytes + 99);
  // Two megabytes are in the temporary file when the fill gives up.
  const auto r = aoe::write_file_atomically(
      file,
      [&](aoe::AtomicFileSink& out) -> aoe::Result<void> {
        out.append(text);
        out.push_back('x');
        return aoe::make_error(aoe::Errc::schema_error, "node 7: not representable");
      },
      false);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == aoe::make_error_code(aoe::Errc::schema_error));
  CHECK(r.error().message == "node 7: not representable");
  CHECK(read(file) == "old");
  CHECK(count_temporaries(dir.path()) == 0);

  // A fill that throws: the exception goes on, the temporary file is gone.
  CHECK_THROWS_AS(aoe::write_file_atomically(file,
                                             [&](aoe::AtomicFileSink& out) -> aoe::Result<void> {
                                               out.append(text);
                                               throw std::runtime_error("out of memory");
                                             }),
                  std::runtime_error);
  CHECK(read(file) == "old");
  CHECK(count_temporaries(dir.path()) == 0);
}

TEST_CASE("atomic file: a write that fails is named, the target and no temporary left") {
  aoe::test::TempDir dir("atomic_write_fails");
  const auto file = dir.write("bank.json", "old");
  const std::string text = pattern(3 * aoe::AtomicFileSink::chunk_bytes);
  std::optional<aoe::Result<void>> streamed;
  std::optional<aoe::Result<void>> whole;
  bool fill_saw_failure = false;
  {
    const FileSizeLimit limit(aoe::AtomicFileSink::chunk_bytes / 2);
    streamed = aoe::write_file_atomically(file, [&](aoe::AtomicFileSink& out) {
      auto r = fill_in_pieces(out, text, {4096});
      fill_saw_failure = !out.ok();
      return r;
    });
    whole = aoe::write_file_atomically(file, text);
  }
  CHECK(fill_saw_failure);
  for (const auto& r : {*streamed, *whole}) {
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::io_error));
    CHECK(r.error().message ==
          "cannot write " + file + ": write: " + std::generic_category().message(EFBIG));
  }
  CHECK(read(file) == "old");
  CHECK(count_temporaries(dir.path()) == 0);
}

TEST_CASE("atomic file: check_atomic_write tries the temporary file and leaves nothing") {
  aoe::test::TempDir dir("atomic_check");
  const auto file = dir.path() / "bank.json";
  REQUIRE(aoe::check_atomic_write(file).has_value());
  CHECK(!fs::exists(file));
  CHECK(count_temporaries(dir.path()) == 0);
  REQUIRE(aoe::write_file_atomically(file, "old").has_value());
  REQUIRE(aoe::check_atomic_write(file).has_value());
  CHECK(read(file) == "old");
  CHECK(count_temporaries(dir.path()) == 0);

  const auto missing = aoe::check_atomic_write(dir.path() / "no" / "bank.json");
  REQUIRE(!missing.has_value());
  CHECK(missing.error().message.find("cannot create a temporary file in " +
                                     (dir.path() / "no").string()) != std::string::npos);
  fs::create_symlink(file, dir.path() / "link.json");
  const auto link = aoe::check_atomic_write(dir.path() / "link.json");
  REQUIRE(!link.has_value());
  CHECK(link.error().message.find("it is a symbolic link") != std::string::npos);
  if (::geteuid() != 0) {  // root writes any directory; the tools' tests run it as another user
    fs::permissions(dir.path(), fs::perms(0555));
    const auto denied = aoe::check_atomic_write(file);
    fs::permissions(dir.path(), fs::perms(0755));
    REQUIRE(!denied.has_value());
    CHECK(denied.error().message.find(std::generic_category().message(EACCES)) !=
          std::string::npos);
  }
}

TEST_CASE("atomic file: a call interrupted by a signal (EINTR) is made again") {
  int calls = 0;
  const int r = aoe::detail::retry_on_eintr([&calls] {
    ++calls;
    if (calls < 3) {
      errno = EINTR;
      return -1;
    }
    return 7;
  });
  CHECK(r == 7);
  CHECK(calls == 3);
  calls = 0;
  const int failed = aoe::detail::retry_on_eintr([&calls] {
    ++calls;
    errno = EIO;
    return -1;
  });
  CHECK(failed == -1);
  CHECK(errno == EIO);
  CHECK(calls == 1);
}
