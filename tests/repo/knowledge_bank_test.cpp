#include "support/bank_keys.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"
#include <aoe/repo/knowledge_bank.hpp>
#include <aoe/tuner/concepts.hpp>

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace repo_knowledge_bank_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

static_assert(aoe::repository_policy<aoe::KnowledgeBank>);

namespace {

using aoe::test::TempDir;

aoe::OperatorDesc matmul(std::int64_t m) {
  aoe::OperatorDesc op = aoe::test::matmul_desc(m);
  op.attributes["transpose_a"] = false;
  return op;
}

aoe::Record record(const aoe::TuningKey& key, double value, std::int64_t tile = 16) {
  return aoe::Record{key, {{"tile_m", tile}, {"order", "mnk"}}, value, {"test", 10, "now"}};
}

const aoe::BankScope scope{"Ascend910A", 32};

}  // namespace

TEST_CASE("bank key: op type, shapes, dtypes, formats, attributes and impl mode") {
  const auto a = aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::schedule, scope);
  auto renamed = matmul(32);
  renamed.name = "other";
  CHECK(aoe::make_bank_key(renamed, aoe::KnowledgeKind::schedule, scope) == a);
  CHECK_FALSE(aoe::make_bank_key(matmul(64), aoe::KnowledgeKind::schedule, scope) == a);
  auto attr = matmul(32);
  attr.attributes["transpose_a"] = true;
  CHECK_FALSE(aoe::make_bank_key(attr, aoe::KnowledgeKind::schedule, scope) == a);
  CHECK_FALSE(aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::format, scope) == a);
  CHECK_FALSE(
      aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::schedule, scope, "high_precision") == a);
  CHECK_FALSE(aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::schedule, {"Ascend910B1", 24}) ==
              a);
  const auto parsed = aoe::parse_bank_key(a);
  REQUIRE(parsed);
  CHECK(parsed->scope.soc_version == "Ascend910A");
  CHECK(parsed->scope.core_num == 32);
  CHECK(parsed->kind == aoe::KnowledgeKind::schedule);
  CHECK(parsed->op_key.find("MatMul;in=[32,64]:float16:ND") == 0);
}

TEST_CASE("bank: store, lookup, update only when better, persisted per SoC and kind") {
  TempDir dir("store");
  const auto key = aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::schedule, scope);
  {
    aoe::KnowledgeBank bank({.custom_root = dir.path()});
    CHECK_FALSE(bank.lookup(key)->has_value());
    CHECK(*bank.store(record(key, 2e-5)) == aoe::StoreOutcome::added);
    CHECK(*bank.store(record(key, 3e-5, 32)) == aoe::StoreOutcome::kept);
    CHECK(*bank.store(record(key, 1e-5, 64)) == aoe::StoreOutcome::updated);
  }
  const fs::path file =
      dir.path() / "Ascend910A" / "unified_bank" / "Ascend910A_32_AiCore_schedule.json";
  REQUIRE(fs::exists(file));
  const std::string text = aoe::test::read_text(file);
  CHECK(text.find("\"schema_version\":1") != std::string::npos);
  CHECK(text.find("\"policy\":\"test\"") != std::string::npos);
  aoe::KnowledgeBank fresh({.custom_root = dir.path()});
  const auto found = fresh.lookup(key);
  REQUIRE(found.has_value());
  REQUIRE(found->has_value());
  CHECK((*found)->value == doctest::Approx(1e-5));
  REQUIRE((*found)->configuration.size() == 2);
  CHECK((*found)->configuration[0].name == "tile_m");  // in the order stored
  CHECK((*found)->configuration[0].value == aoe::Value(64));
  CHECK((*found)->configuration[1].value == aoe::Value("mnk"));
  CHECK((*found)->provenance.evaluations == 10);
  CHECK_FALSE(
      fresh.lookup(aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::format, scope))->has_value());
}

TEST_CASE("bank: the first read of a bank directory removes a dead writer's temporary file") {
  TempDir dir("sweep_on_read");
  const auto key = aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::schedule, scope);
  const fs::path written = dir.path() / "written";
  REQUIRE(*aoe::KnowledgeBank({.custom_root = written}).store(record(key, 2e-5)) ==
          aoe::StoreOutcome::added);
  // The same bank in a directory this process has not read or written yet (the sweep is once
  // per directory and process), with the temporary file of a writer that died.
  const fs::path bank = dir.path() / "bank";
  fs::copy(written, bank, fs::copy_options::recursive);
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  const fs::path unified = bank / "Ascend910A" / "unified_bank";
  const fs::path stale =
      unified / (".Ascend910A_32_AiCore_schedule.json.aoe-tmp." + std::to_string(child) + "." +
                 aoe::detail::atomic_temp_host() + ".0123456789abcdef");
  std::ofstream(stale) << "half";
  REQUIRE(fs::exists(stale));
  const auto found =
      aoe::KnowledgeBank({.custom_root = bank}).lookup(key);  // reads, stores nothing
  REQUIRE(found.has_value());
  CHECK(found->has_value());
  CHECK_FALSE(fs::exists(stale));
}

TEST_CASE("bank: an entry says whether its time was simulated or measured; old entries do not") {
  TempDir dir("timing");
  const auto simulated = aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::schedule, scope);
  const auto measured = aoe::make_bank_key(matmul(64), aoe::KnowledgeKind::schedule, scope);
  const auto unsaid = aoe::make_bank_key(matmul(96), aoe::KnowledgeKind::schedule, scope);
  {
    aoe::KnowledgeBank bank({.custom_root = dir.path()});
    auto r = record(simulated, 2e-5);
    r.provenance.timing = aoe::Timing{aoe::TimingKind::simulated, "model 1.2"};
    REQUIRE(bank.store(r).has_value());
    r = record(measured, 2e-5);
    r.provenance.timing = aoe::Timing{aoe::TimingKind::measured, "Ascend910B1, device 0"};
    REQUIRE(bank.store(r).has_value());
    REQUIRE(bank.store(record(unsaid, 2e-5)).has_value());
  }
  const fs::path file =
      dir.path() / "Ascend910A" / "unified_bank" / "Ascend910A_32_AiCore_schedule.json";
  const std::string text = aoe::test::read_text(file);
  CHECK(text.find(R"("timing":{"kind":"simulated","source":"model 1.2"})") != std::string::npos);
  CHECK(text.find(R"("timing":{"kind":"measured","source":"Ascend910B1, device 0"})") !=
        std::string::npos);
  aoe::KnowledgeBank fresh({.custom_root = dir.path()});
  const auto kind_of = [&](const aoe::TuningKey& key) {
    const auto found = fresh.lookup(key);
    REQUIRE(found.has_value());
    REQUIRE(found->has_value());
    const auto& t = (*found)->provenance.timing;
    return t ? std::string(aoe::to_string(t->kind)) + ": " + t->source : std::string("none");
  };
  CHECK(kind_of(simulated) == "simulated: model 1.2");
  CHECK(kind_of(measured) == "measured: Ascend910B1, device 0");
  CHECK(kind_of(unsaid) == "none");  // as every entry of a bank written before this field
  // An entry without the field is written as it was: no "timing" appears for it.
  std::size_t timings = 0;
  for (std::size_t at = text.find("\"timing\""); at != std::string::npos;
       at = text.find("\"timing\"", at + 1))
    ++timings;
  CHECK(timings == 2);
}

TEST_CASE("bank: the built-in bank is read after the custom bank and never written") {
  TempDir custom("custom");
  TempDir builtin("builtin");
  const auto key = aoe::make_bank_key(matmul(8), aoe::KnowledgeKind::schedule, scope);
  {
    aoe::KnowledgeBank writer({.custom_root = builtin.path()});
    REQUIRE(writer.store(record(key, 5e-5)).has_value());
  }
  aoe::KnowledgeBank bank({.custom_root = custom.path(), .builtin_root = builtin.path()});
  auto hit = bank.lookup(key);
  REQUIRE(hit->has_value());
  CHECK((*hit)->value == doctest::Approx(5e-5));
  CHECK(*bank.store(record(key, 4e-5)) == aoe::StoreOutcome::added);  // custom had none
  hit = bank.lookup(key);
  CHECK((*hit)->value == doctest::Approx(4e-5));
  aoe::KnowledgeBank builtin_only({.custom_root = builtin.path()});
  CHECK((*builtin_only.lookup(key))->value == doctest::Approx(5e-5));
}

TEST_CASE("bank: a corrupt or unknown-version file is an error and is left untouched") {
  TempDir dir("corrupt");
  const auto key = aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::schedule, scope);
  aoe::KnowledgeBank bank({.custom_root = dir.path()});
  const fs::path file = bank.custom_file(scope, aoe::KnowledgeKind::schedule);
  fs::create_directories(file.parent_path());
  for (const std::string& content :
       {std::string("{\"schema_version\":1,\"entries\":{\"x\":"),
        std::string("{\"schema_version\":99,\"entries\":{}}"),
        std::string("{\"schema_version\":1,\"entries\":{\"k\":{\"value\":1}}}")}) {
    { std::ofstream(file) << content; }
    bank.reload();
    const auto looked = bank.lookup(key);
    REQUIRE_FALSE(looked.has_value());
    CHECK(looked.error().message.find(file.string()) != std::string::npos);
    const auto stored = bank.store(record(key, 1e-5));
    REQUIRE_FALSE(stored.has_value());
    INFO(stored.error().message);
    CHECK(stored.error().message.find("left as it is") != std::string::npos);
    CHECK(aoe::test::read_text(file) == content);
    CHECK_FALSE(bank.check_writable(scope).has_value());
  }
}

TEST_CASE("bank: an unwritable bank directory is a clear error") {
  const auto key = aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::schedule, scope);
  {
    // A bank root that is a regular file: no process can create the bank directory in it.
    TempDir dir("file");
    const fs::path root = dir.path() / "not_a_directory";
    { std::ofstream(root) << "x"; }
    aoe::KnowledgeBank bank({.custom_root = root});
    const auto w = bank.check_writable(scope);
    REQUIRE_FALSE(w.has_value());
    CHECK(w.error().code == aoe::make_error_code(aoe::Errc::io_error));
    CHECK(w.error().message.find(root.string()) != std::string::npos);
    CHECK_FALSE(bank.store(record(key, 1e-5)).has_value());
  }
}

TEST_CASE("bank: a read-only bank directory is a clear error") {
  const auto key = aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::schedule, scope);
  if (::geteuid() == 0) {
    aoe::test::skip("running as root: directory permissions do not apply to root");
    return;
  }
  TempDir dir("ro");
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
  aoe::KnowledgeBank bank({.custom_root = dir.path()});
  const auto w = bank.check_writable(scope);
  REQUIRE_FALSE(w.has_value());
  CHECK(w.error().code == aoe::make_error_code(aoe::Errc::io_error));
  CHECK(w.error().message.find(dir.path().string()) != std::string::npos);
  CHECK_FALSE(bank.store(record(key, 1e-5)).has_value());
}

TEST_CASE("bank: two processes storing into one bank at once lose nothing") {
  TempDir dir("two");
  constexpr int per_process = 40;
  pid_t children[2];
  for (int p = 0; p < 2; ++p) {
    children[p] = ::fork();
    REQUIRE(children[p] >= 0);
    if (children[p] == 0) {
      aoe::KnowledgeBank bank({.custom_root = dir.path()});
      int failures = 0;
      for (int i = 0; i < per_process; ++i) {
        const auto key =
            aoe::make_bank_key(matmul(1000 * (p + 1) + i), aoe::KnowledgeKind::schedule, scope);
        if (!bank.store(record(key, 1e-5)).has_value()) ++failures;
      }
      ::_exit(failures == 0 ? 0 : 1);
    }
  }
  for (const pid_t c : children) {
    int status = 0;
    REQUIRE(::waitpid(c, &status, 0) == c);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  aoe::KnowledgeBank bank({.custom_root = dir.path()});
  const auto all = bank.entries(scope, aoe::KnowledgeKind::schedule);
  REQUIRE(all.has_value());
  CHECK(all->size() == 2 * per_process);
}

TEST_CASE("bank: keys that are not AOE operator keys go to their device's user-keys file") {
  TempDir dir("user_keys");
  const aoe::TuningKey key{"matmul/n=256/fp32", "host"};
  const aoe::TuningKey other_device{"matmul/n=256/fp32", "host/x86_64"};
  {
    aoe::KnowledgeBank bank({.custom_root = dir.path()});
    CHECK_FALSE(bank.lookup(key)->has_value());
    CHECK(*bank.store(record(key, 2e-3)) == aoe::StoreOutcome::added);
    CHECK(*bank.store(record(key, 3e-3, 32)) == aoe::StoreOutcome::kept);
    CHECK(*bank.store(record(key, 1e-3, 64)) == aoe::StoreOutcome::updated);
    CHECK(*bank.store(record(other_device, 5e-3)) == aoe::StoreOutcome::added);
  }
  const fs::path file = dir.path() / "host" / "user_bank" / "host_user_keys.json";
  REQUIRE(fs::exists(file));
  CHECK(fs::exists(dir.path() / "host%2Fx86_64" / "user_bank" / "host%2Fx86_64_user_keys.json"));
  CHECK_FALSE(fs::exists(dir.path() / "host" / "unified_bank"));  // never an AOE AiCore file
  const std::string text = aoe::test::read_text(file);
  CHECK(text.find("\"knowledge_kind\":\"user_keys\"") != std::string::npos);
  CHECK(text.find("\"device\":\"host\"") != std::string::npos);
  aoe::KnowledgeBank fresh({.custom_root = dir.path()});
  const auto found = fresh.lookup(key);
  REQUIRE(found.has_value());
  REQUIRE(found->has_value());
  CHECK((*found)->key == key);
  CHECK((*found)->value == doctest::Approx(1e-3));
  CHECK((*found)->configuration[0].value == aoe::Value(64));
  CHECK((*fresh.lookup(other_device))->value == doctest::Approx(5e-3));
  const auto all = fresh.user_entries("host");
  REQUIRE(all.has_value());
  REQUIRE(all->size() == 1);
  CHECK(all->begin()->second.key == key);
  // A key without a device has no file to go to.
  const auto bad = fresh.store(record(aoe::TuningKey{"matmul", ""}, 1));
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("non-empty problem and device") != std::string::npos);
  CHECK(aoe::detail::bank_device_file_part("..") == "%2E%2E");
}

TEST_CASE("bank: a pareto entry keeps the front its configuration was picked from") {
  TempDir dir("front");
  auto key = aoe::make_bank_key(matmul(32), aoe::KnowledgeKind::schedule, scope);
  key.problem += "#objective=pareto:knee";
  aoe::Record r = record(key, 2e-8, 32);
  r.front = {{{{"tile_m", 64}, {"order", "mnk"}}, 1e-5, 3e-3},
             {{{"tile_m", 32}, {"order", "mnk"}}, 2e-5, 1e-3}};
  {
    aoe::KnowledgeBank bank({.custom_root = dir.path()});
    CHECK(*bank.store(r) == aoe::StoreOutcome::added);
    // A time entry beside it has no front, and its file text none either.
    const auto time_key = aoe::make_bank_key(matmul(64), aoe::KnowledgeKind::schedule, scope);
    CHECK(*bank.store(record(time_key, 1e-5)) == aoe::StoreOutcome::added);
  }
  aoe::KnowledgeBank fresh({.custom_root = dir.path()});
  const auto found = fresh.lookup(key);
  REQUIRE(found.has_value());
  REQUIRE(found->has_value());
  REQUIRE((*found)->front.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK((*found)->front[i].configuration == r.front[i].configuration);
    CHECK((*found)->front[i].seconds == doctest::Approx(r.front[i].seconds));
    CHECK((*found)->front[i].joules == doctest::Approx(r.front[i].joules));
  }
  const fs::path file = fresh.custom_file(scope, aoe::KnowledgeKind::schedule);
  const std::string text = aoe::test::read_text(file);
  CHECK(text.find("\"front\":[{\"knowledge\":{\"tile_m\":64,\"order\":\"mnk\"},\"time(us)\":"
                  "1E1,\"energy(mJ)\":3E0}") != std::string::npos);
  CHECK(text.find("\"front\"") == text.rfind("\"front\""));  // one entry has one
  // A front that cannot be read is a corrupt file, named to the member and field.
  const std::string field = "\"energy(mJ)\":3E0";
  std::string broken = text;
  broken.replace(broken.find(field), field.size(), "\"energy\":3");
  { std::ofstream(file) << broken; }
  fresh.reload();
  const auto bad = fresh.lookup(key);
  REQUIRE_FALSE(bad.has_value());
  INFO(bad.error().message);
  CHECK(bad.error().message.find("/front/0/energy(mJ)") != std::string::npos);
  CHECK(bad.error().message.find("expected a number") != std::string::npos);
}

}  // namespace repo_knowledge_bank_test
