// A bank many people and a CANN install can share (issue #18; docs/reliability.md, "Locking"):
// stored times are positive and finite (refused on store, skipped with one warning on load) in
// all three banks; a built-in file this project cannot read is skipped with a warning; a bank
// file that is a symbolic link (or a loop) is an error, never silently replaced or emptied; a
// held lock fails after the timeout naming the lock file; the lock file follows the directory.
#include "support/bank_keys.hpp"
#include "support/temp_dir.hpp"
#include <aoe/jobs/gdat/gradient_fusion_bank.hpp>
#include <aoe/jobs/sgat/graph_bank.hpp>
#include <aoe/repo/knowledge_bank.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace repo_bank_sharing_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const aoe::BankScope scope{"Ascend910A", 32};

aoe::TuningKey key_of(std::int64_t m) {
  return aoe::make_bank_key(aoe::test::matmul_desc(m), aoe::KnowledgeKind::schedule, scope);
}

aoe::Record record(const aoe::TuningKey& key, double value) {
  return aoe::Record{key, {{"tile_m", std::int64_t{16}}}, value, {"test", 10, "now"}};
}

aoe::GraphBankRecord graph_record(const std::string& key, double value) {
  aoe::GraphBankRecord r;
  r.repo_key = key;
  r.signature = "s" + key;
  r.knowledge = {{"cut", aoe::Value(2)}};
  r.value = value;
  r.feature["feature"] = boost::json::array{};
  r.strategy["end2EndTime"] = 1.0;
  return r;
}

aoe::gdat::GradientFusionRecord gradient_record(const std::string& hash, double seconds) {
  aoe::gdat::GradientFusionRecord r;
  r.model_hash = hash;
  r.cluster = "c";
  r.model_name = "m";
  r.gradient_time_us = {1.0, 2.0};
  r.gradient_size = {4, 4};
  r.split.ends = {1};
  r.by_size = {100.0};
  r.iteration_seconds = seconds;
  r.default_seconds = 1.0;
  return r;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// `text` with the first occurrence of `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

const std::vector<double> bad_times{0.0, -1e-6, std::numeric_limits<double>::quiet_NaN(),
                                    std::numeric_limits<double>::infinity()};

}  // namespace

TEST_CASE("bank values: a time that is not positive and finite is refused on store") {
  aoe::test::TempDir dir("bank_refuse");
  aoe::KnowledgeBank bank({.custom_root = dir.path()});
  aoe::GraphBank graph({.root = dir.path()});
  aoe::gdat::GradientFusionBank gradient(dir.path(), "Ascend910A");
  for (const double t : bad_times) {
    CAPTURE(t);
    const auto a = bank.store(record(key_of(8), t));
    REQUIRE(!a.has_value());
    CHECK(a.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
    CHECK(a.error().message.find("expected a positive finite number of seconds") !=
          std::string::npos);
    CHECK(!graph.store("Ascend910A", graph_record("7", t)).has_value());
    CHECK(!gradient.store(gradient_record("9", t)).has_value());
  }
  CHECK(!fs::exists(bank.custom_file(scope, aoe::KnowledgeKind::schedule)));
  CHECK(!fs::exists(graph.file("Ascend910A")));
  CHECK(!fs::exists(gradient.file()));
}

TEST_CASE("bank values: a stored 0 or negative time is skipped on load with one warning") {
  aoe::test::TempDir dir("bank_skip");
  std::vector<std::string> warnings;
  const aoe::BankAccess access{.on_warning = [&](const std::string& m) { warnings.push_back(m); }};
  const auto k0 = key_of(8);
  const auto k1 = key_of(16);
  {
    aoe::KnowledgeBank bank({.custom_root = dir.path()});
    REQUIRE(bank.store(record(k0, 2e-5)).has_value());
    REQUIRE(bank.store(record(k1, 3e-5)).has_value());
  }
  const auto file = aoe::KnowledgeBank::file_for(dir.path(), scope, aoe::KnowledgeKind::schedule);
  write(file, replaced(read(file), "\"value\":2E-5", "\"value\":0"));
  aoe::KnowledgeBank bank({.custom_root = dir.path(), .access = access});
  CHECK(!bank.lookup(k0).value().has_value());  // skipped: as if absent
  CHECK(bank.lookup(k1).value().has_value());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find(file.string()) != std::string::npos);
  CHECK(warnings[0].find(k0.problem.substr(k0.problem.find('|') + 1)) != std::string::npos);
  // The 0 no longer blocks an update: a real time is stored over it.
  CHECK(*bank.store(record(k0, 4e-5)) == aoe::StoreOutcome::added);
  CHECK(bank.lookup(k0).value()->value == doctest::Approx(4e-5));
  CHECK(warnings.size() == 1);

  // The graph bank and the gradient-fusion bank alike.
  warnings.clear();
  {
    aoe::GraphBank g({.root = dir.path()});
    REQUIRE(g.store("Ascend910A", graph_record("7", 2e-6)).has_value());
    REQUIRE(g.store("Ascend910A", graph_record("8", 3e-6)).has_value());
  }
  aoe::GraphBank g({.root = dir.path(), .access = access});
  const auto gfile = g.file("Ascend910A");
  write(gfile, replaced(read(gfile), "\"value\":2E-6", "\"value\":-1"));
  const auto records = g.entries("Ascend910A");
  REQUIRE(records.has_value());
  CHECK(records->size() == 1);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find(gfile.string()) != std::string::npos);
  CHECK(warnings[0].find("'7'") != std::string::npos);

  warnings.clear();
  {
    aoe::gdat::GradientFusionBank b(dir.path(), "Ascend910A");
    REQUIRE(b.store(gradient_record("9", 2e-3)).has_value());
  }
  aoe::gdat::GradientFusionBank b(dir.path(), "Ascend910A", "t", access);
  write(b.file(),
        replaced(read(b.file()), "\"iteration_time(ms)\":2E0", "\"iteration_time(ms)\":0"));
  CHECK(!b.lookup("9", "c").value().has_value());
  CHECK(!b.lookup("9", "c").value().has_value());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find(b.file().string()) != std::string::npos);
  CHECK(warnings[0].find("'9'") != std::string::npos);
  CHECK(*b.store(gradient_record("9", 3e-3)) == aoe::StoreOutcome::added);
  REQUIRE(b.records().value().size() == 1);  // replaced in place, not added beside
  CHECK(b.records().value()[0].iteration_seconds == doctest::Approx(3e-3));
}

TEST_CASE("bank: a built-in file this project cannot read is skipped with one warning") {
  aoe::test::TempDir custom("bank_custom");
  aoe::test::TempDir builtin("bank_builtin");
  std::vector<std::string> warnings;
  const auto foreign =
      aoe::KnowledgeBank::file_for(builtin.path(), scope, aoe::KnowledgeKind::schedule);
  write(foreign,
        "\x89"
        "CANN binary knowledge");
  aoe::KnowledgeBank bank(
      {.custom_root = custom.path(),
       .builtin_root = builtin.path(),
       .access = {.on_warning = [&](const std::string& m) { warnings.push_back(m); }}});
  CHECK(!bank.lookup(key_of(8)).value().has_value());
  CHECK(!bank.lookup(key_of(16)).value().has_value());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("skipping built-in bank file " + foreign.string()) != std::string::npos);
  // The custom bank stays strict: the same content there is an error.
  write(aoe::KnowledgeBank::file_for(custom.path(), scope, aoe::KnowledgeKind::schedule),
        "\x89"
        "CANN binary knowledge");
  aoe::KnowledgeBank strict({.custom_root = custom.path()});
  CHECK(!strict.lookup(key_of(8)).has_value());
}

TEST_CASE("bank: a bank file that is a symbolic link or a link loop is an error, kept as is") {
  aoe::test::TempDir dir("bank_links");
  const auto file = aoe::KnowledgeBank::file_for(dir.path(), scope, aoe::KnowledgeKind::schedule);
  fs::create_directories(file.parent_path());
  fs::create_symlink(file, file);  // a loop
  aoe::KnowledgeBank bank({.custom_root = dir.path()});
  const auto l = bank.lookup(key_of(8));
  REQUIRE(!l.has_value());
  CHECK(l.error().message.find("cannot read " + file.string()) != std::string::npos);
  CHECK(!bank.store(record(key_of(8), 1e-5)).has_value());
  CHECK(fs::is_symlink(file));

  fs::remove(file);
  const auto elsewhere = dir.path() / "elsewhere.json";
  {
    aoe::KnowledgeBank other({.custom_root = dir.path() / "other"});
    REQUIRE(other.store(record(key_of(8), 1e-5)).has_value());
    fs::copy_file(other.custom_file(scope, aoe::KnowledgeKind::schedule), elsewhere);
  }
  const std::string before = read(elsewhere);
  fs::create_symlink(elsewhere, file);
  aoe::KnowledgeBank linked({.custom_root = dir.path()});
  CHECK(linked.lookup(key_of(8)).value().has_value());  // read through the link
  const auto s = linked.store(record(key_of(16), 1e-5));
  REQUIRE(!s.has_value());
  CHECK(s.error().message.find("symbolic link") != std::string::npos);
  CHECK(fs::is_symlink(file));
  CHECK(read(elsewhere) == before);
}

TEST_CASE("bank: a held lock fails after the timeout with the lock file named") {
  aoe::test::TempDir dir("bank_lock");
  aoe::KnowledgeBank bank({.custom_root = dir.path(), .access = {.lock_timeout = 1s}});
  REQUIRE(bank.store(record(key_of(8), 2e-5)).has_value());
  const auto lock = bank.custom_file(scope, aoe::KnowledgeKind::schedule).string() + ".lock";
  // Another open file description: its flock conflicts with the bank's as another process's.
  const int holder = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(holder >= 0);
  REQUIRE(::flock(holder, LOCK_EX) == 0);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = bank.store(record(key_of(16), 1e-5));
  const auto waited = std::chrono::steady_clock::now() - t0;
  REQUIRE(!r.has_value());
  CHECK(r.error().code == aoe::make_error_code(aoe::Errc::busy));
  CHECK(r.error().message.find("lock file " + lock + " is held by another process") !=
        std::string::npos);
  CHECK(r.error().message.find("TUNE_BANK_LOCK_TIMEOUT") != std::string::npos);
  CHECK(waited >= 900ms);
  ::close(holder);  // released: the store goes through
  CHECK(*bank.store(record(key_of(16), 1e-5)) == aoe::StoreOutcome::added);
}

TEST_CASE("bank: a FIFO at the lock's path is a named error, not a hang") {
  aoe::test::TempDir dir("bank_lockfifo");
  aoe::KnowledgeBank bank({.custom_root = dir.path(), .access = {.lock_timeout = 1s}});
  REQUIRE(bank.store(record(key_of(8), 2e-5)).has_value());
  const auto lock = bank.custom_file(scope, aoe::KnowledgeKind::schedule).string() + ".lock";
  fs::remove(lock);
  REQUIRE(::mkfifo(lock.c_str(), 0644) == 0);
  // Before the fix the open blocked forever (no writer on the FIFO), whatever the timeout.
  const auto r = bank.store(record(key_of(16), 1e-5));
  REQUIRE(!r.has_value());
  CHECK(r.error().message.find("lock file " + lock + " is not a regular file") !=
        std::string::npos);
  fs::remove(lock);
  CHECK(*bank.store(record(key_of(16), 1e-5)) == aoe::StoreOutcome::added);
}

TEST_CASE("bank: lock files are readable by whoever may read the bank directory") {
  aoe::test::TempDir dir("bank_lockmode");
  const mode_t old = ::umask(077);  // a strict umask must not lock the team out
  aoe::GraphBank bank({.root = dir.path()});
  fs::permissions(dir.path(), fs::perms(0775));
  const auto ok = bank.check_writable("Ascend910A");
  ::umask(old);
  REQUIRE(ok.has_value());
  struct stat st {};
  REQUIRE(::stat((bank.file("Ascend910A").string() + ".lock").c_str(), &st) == 0);
  CHECK((st.st_mode & 0444) == 0444);
}

TEST_CASE("bank: in a team's set-group-ID bank, lock files are group-writable (NFS locks)") {
  // On NFS an exclusive flock is an fcntl lock that needs the file open for writing (flock(2)),
  // so every member of the team must be able to open the lock file read-write.
  aoe::test::TempDir dir("bank_lock_team");
  fs::permissions(dir.path(), fs::perms(02775));
  const mode_t old = ::umask(077);
  aoe::GraphBank bank({.root = dir.path()});
  const auto ok = bank.check_writable("Ascend910A");
  ::umask(old);
  REQUIRE(ok.has_value());
  struct stat st {};
  REQUIRE(::stat((bank.file("Ascend910A").string() + ".lock").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0664);

  aoe::test::TempDir plain("bank_lock_plain");  // not a team's bank: only the owner writes
  fs::permissions(plain.path(), fs::perms(0755));
  aoe::GraphBank own({.root = plain.path()});
  REQUIRE(own.check_writable("Ascend910A").has_value());
  REQUIRE(::stat((own.file("Ascend910A").string() + ".lock").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE("bank: below a set-group-ID root, new bank directories take the root's mode") {
  aoe::test::TempDir dir("bank_setgid");
  fs::permissions(dir.path(), fs::perms(02775));
  const mode_t old = ::umask(022);
  aoe::KnowledgeBank bank({.custom_root = dir.path()});
  const auto ok = bank.store(record(key_of(8), 1e-5));
  ::umask(old);
  REQUIRE(ok.has_value());
  struct stat st {};
  REQUIRE(::stat((dir.path() / "Ascend910A" / "unified_bank").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 02775);
}

TEST_CASE("bank values: a store keeps another key's skipped record as it was, in all three banks") {
  // A record skipped on load (written by another version or user) is not ours to drop: a store
  // of another key writes it back unchanged; a store of its own key replaces it.
  aoe::test::TempDir dir("bank_keep_skipped");
  const auto k0 = key_of(8);
  const auto k1 = key_of(16);
  const auto k2 = key_of(24);
  aoe::KnowledgeBank bank({.custom_root = dir.path()});
  REQUIRE(bank.store(record(k0, 2e-5)).has_value());
  REQUIRE(bank.store(record(k1, 3e-5)).has_value());
  const auto file = bank.custom_file(scope, aoe::KnowledgeKind::schedule);
  write(file, replaced(read(file), "\"value\":2E-5", "\"value\":0"));
  const std::string k0_text = k0.problem.substr(k0.problem.find('|') + 1);
  const auto entry_of = [&](const std::string& text, const std::string& name) {
    return boost::json::parse(text).at("entries").at(name);
  };
  const auto skipped = entry_of(read(file), k0_text);
  aoe::KnowledgeBank other({.custom_root = dir.path()});
  CHECK(*other.store(record(k2, 4e-5)) == aoe::StoreOutcome::added);    // another key
  CHECK(*other.store(record(k1, 1e-5)) == aoe::StoreOutcome::updated);  // and an update
  CHECK(entry_of(read(file), k0_text) == skipped);
  CHECK(other.entries(scope, aoe::KnowledgeKind::schedule).value().size() == 2);
  CHECK(*other.store(record(k0, 5e-5)) == aoe::StoreOutcome::added);  // its own key replaces it
  CHECK(entry_of(read(file), k0_text).at("value").as_double() == 5e-5);
  CHECK(other.entries(scope, aoe::KnowledgeKind::schedule).value().size() == 3);

  // The graph bank: the skipped line stays in its place.
  aoe::GraphBank g({.root = dir.path()});
  REQUIRE(g.store("Ascend910A", graph_record("7", 2e-6)).has_value());
  REQUIRE(g.store("Ascend910A", graph_record("8", 3e-6)).has_value());
  const auto gfile = g.file("Ascend910A");
  write(gfile, replaced(read(gfile), "\"value\":2E-6", "\"value\":-1"));
  const auto line_of = [&](std::size_t n) {
    std::istringstream in(read(gfile));
    std::string line;
    for (std::size_t i = 0; i <= n; ++i) std::getline(in, line);
    return line;
  };
  const std::string skipped_line = line_of(1);
  REQUIRE(skipped_line.find("\"value\":-1") != std::string::npos);
  aoe::GraphBank g2({.root = dir.path()});
  CHECK(*g2.store("Ascend910A", graph_record("9", 4e-6)) == aoe::StoreOutcome::added);
  CHECK(*g2.store("Ascend910A", graph_record("8", 1e-6)) == aoe::StoreOutcome::updated);
  CHECK(boost::json::parse(line_of(1)) == boost::json::parse(skipped_line));
  CHECK(line_of(2).find("\"repo_key\":\"8\"") != std::string::npos);
  CHECK(line_of(3).find("\"repo_key\":\"9\"") != std::string::npos);
  CHECK(*g2.store("Ascend910A", graph_record("7", 5e-6)) == aoe::StoreOutcome::added);
  CHECK(read(gfile).find("\"value\":-1") == std::string::npos);
  CHECK(g2.entries("Ascend910A").value().size() == 3);

  // The gradient-fusion bank alike (it kept them before; the rule is now the store core's).
  aoe::gdat::GradientFusionBank b(dir.path(), "Ascend910A");
  REQUIRE(b.store(gradient_record("1", 2e-3)).has_value());
  REQUIRE(b.store(gradient_record("2", 3e-3)).has_value());
  write(b.file(),
        replaced(read(b.file()), "\"iteration_time(ms)\":2E0", "\"iteration_time(ms)\":0"));
  const auto skipped_entry = boost::json::parse(read(b.file())).at(0);
  aoe::gdat::GradientFusionBank b2(dir.path(), "Ascend910A");
  CHECK(*b2.store(gradient_record("3", 4e-3)) == aoe::StoreOutcome::added);
  CHECK(*b2.store(gradient_record("2", 1e-3)) == aoe::StoreOutcome::updated);
  const auto entries = boost::json::parse(read(b.file())).as_array();
  REQUIRE(entries.size() == 3);
  CHECK(entries[0] == skipped_entry);
  CHECK(b2.records().value().size() == 2);
}

TEST_CASE("bank values: a stored time reads back as the same double in all three banks") {
  // Boost.JSON 1.81 reads ~1 in 6 of the shortest texts of a double 1 ulp off; a bank's value
  // must come back exactly (an operator whose default time equals the stored one is no update).
  aoe::test::TempDir dir("bank_round_trip");
  const std::vector<double> awkward{1.3881616116596167e-05,
                                    1.5752943085968413e-07,
                                    9.365637830007863e-06,
                                    2.1589047199003112e-08,
                                    0.0019438922340007266,
                                    0.1 + 0.2,
                                    1.0 / 3.0,
                                    std::nextafter(1e-5, 1.0),
                                    4.9406564584124654e-324,
                                    1.2345678901234567e300};
  aoe::KnowledgeBank bank({.custom_root = dir.path()});
  aoe::GraphBank graph({.root = dir.path()});
  for (std::size_t i = 0; i < awkward.size(); ++i) {
    REQUIRE(bank.store(record(key_of(static_cast<std::int64_t>(8 + i)), awkward[i])).has_value());
    REQUIRE(graph.store("Ascend910A", graph_record(std::to_string(i), awkward[i])).has_value());
  }
  aoe::KnowledgeBank fresh({.custom_root = dir.path()});
  aoe::GraphBank fresh_graph({.root = dir.path()});
  const auto records = fresh_graph.entries("Ascend910A");
  REQUIRE(records.has_value());
  REQUIRE(records->size() == awkward.size());
  for (std::size_t i = 0; i < awkward.size(); ++i) {
    CAPTURE(awkward[i]);
    const auto found = fresh.lookup(key_of(static_cast<std::int64_t>(8 + i)));
    REQUIRE(found.has_value());
    REQUIRE(found->has_value());
    CHECK(std::bit_cast<std::uint64_t>((*found)->value) ==
          std::bit_cast<std::uint64_t>(awkward[i]));
    CHECK(std::bit_cast<std::uint64_t>((*records)[i].value) ==
          std::bit_cast<std::uint64_t>(awkward[i]));
    // The same time stored again is no update.
    CHECK(*fresh.store(record(key_of(static_cast<std::int64_t>(8 + i)), awkward[i])) ==
          aoe::StoreOutcome::kept);
  }
}

TEST_CASE("bank: errors name a key with '/' or '~' by a JSON pointer escaped as RFC 6901 says") {
  aoe::test::TempDir dir("bank_pointer");
  aoe::KnowledgeBank bank({.custom_root = dir.path()});
  const aoe::TuningKey key{"matmul/n=256~fp32", "host"};
  REQUIRE(bank.store(record(key, 2e-5)).has_value());
  const auto file = bank.custom_user_file("host");
  write(file, replaced(read(file), "\"tile_m\":16", "\"tile_m\":[16]"));
  aoe::KnowledgeBank fresh({.custom_root = dir.path()});
  const auto found = fresh.lookup(key);
  REQUIRE(!found.has_value());
  CHECK(found.error().message.find("/entries/matmul~1n=256~0fp32/knowledge/tile_m") !=
        std::string::npos);

  aoe::GraphBank graph({.root = dir.path()});
  auto r = graph_record("7", 1e-6);
  r.knowledge = {{"cut/a~b", aoe::Value(2)}};
  REQUIRE(graph.store("Ascend910A", r).has_value());
  const auto gfile = graph.file("Ascend910A");
  write(gfile, replaced(read(gfile), "\"cut/a~b\":2", "\"cut/a~b\":[2]"));
  aoe::GraphBank fresh_graph({.root = dir.path()});
  const auto entries = fresh_graph.entries("Ascend910A");
  REQUIRE(!entries.has_value());
  CHECK(entries.error().message.find("/knowledge/cut~1a~0b") != std::string::npos);
}

TEST_CASE("gradient-fusion bank: a record put in the contents is what they then hold") {
  // put() replaced the entry in the file's JSON but left the parsed records as they were, so a
  // read of the store's cache in the same process saw the old time.
  aoe::gdat::GradientFusionFile format{{"t"}};
  aoe::gdat::GradientFusionFile::Contents contents;
  format.put(contents, gradient_record("1", 3e-3));
  REQUIRE(format.stored(contents, gradient_record("1", 1)).has_value());
  CHECK(*format.stored(contents, gradient_record("1", 1)) == 3e-3);
  format.put(contents, gradient_record("1", 2e-3));
  CHECK(*format.stored(contents, gradient_record("1", 1)) == 2e-3);
  REQUIRE(contents.records.size() == 1);
  CHECK(contents.raw.size() == 1);
  // Through the store: what its cache holds after an update is the new record.
  aoe::test::TempDir dir("gradient_cache");
  aoe::detail::BankStore<aoe::gdat::GradientFusionFile> store({}, false, "test");
  const auto file = dir.path() / "g.json";
  REQUIRE(*store.store(file, format, gradient_record("1", 3e-3)) == aoe::StoreOutcome::added);
  REQUIRE(*store.store(file, format, gradient_record("1", 2e-3)) == aoe::StoreOutcome::updated);
  const auto cached = store.with_cached(file, format, [&](const auto& c) {
    return aoe::gdat::GradientFusionFile::stored(c, gradient_record("1", 1));
  });
  REQUIRE(cached.has_value());
  REQUIRE(cached->has_value());
  CHECK(**cached == 2e-3);
}

}  // namespace repo_bank_sharing_test
