#include "support/landscapes.hpp"
#include "support/temp_dir.hpp"
#include <aoe/export/history.hpp>
#include <aoe/observe/csv_writer.hpp>
#include <aoe/observe/progress.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace aoe;
using aoe::test::TempDir;

static_assert(observer<Progress>);
static_assert(observer<CsvWriter>);

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("progress: a line every N trials when not on a terminal, and a summary") {
  TempDir dir("observe_progress");
  const std::string path = dir.file("progress.txt");
  std::FILE* f = std::fopen(path.c_str(), "w");
  REQUIRE(f != nullptr);
  const auto l = test::bowl();
  Tuner tuner(RandomSearch{}, test::LandscapeRunner(l.evaluate), TunerOptions{.seed = 2});
  const auto r = tuner.tune(l.space, MaxEvaluations{40},
                            Progress{{.out = f, .total = 40, .every = 10, .label = "bowl"}});
  std::fclose(f);
  const std::string text = read_text(path);
  CHECK(count_lines(text) == 5);  // 10, 20, 30, 40 and the summary
  CHECK(text.rfind("bowl: 10/40 trials, best ", 0) == 0);
  CHECK(text.find("s left") != std::string::npos);
  CHECK(text.find("bowl: 40/40 trials") != std::string::npos);
  CHECK(text.find(", condition\n") != std::string::npos);
  CHECK(text.find('\r') == std::string::npos);  // no terminal redraws in a file
  CHECK(r.history.size() == 40);
}

TEST_CASE("csv writer: writes what write_history_csv writes, as the run goes") {
  TempDir dir("observe_csv");
  const auto l = test::bowl();
  Tuner tuner(RandomSearch{}, test::LandscapeRunner(l.evaluate),
              TunerOptions{.seed = 3, .batch_size = 4});
  CsvWriter csv(dir.file("trials.csv"));
  const auto r = tuner.tune(l.space, MaxEvaluations{30}, csv);
  CHECK_FALSE(csv.error());
  std::ostringstream expected;
  write_history_csv(expected, l.space, r);
  CHECK(read_text(dir.file("trials.csv")) == expected.str());
  CHECK(count_lines(expected.str()) == 31);
}

TEST_CASE("csv writer: a file that cannot be opened is an error naming it") {
  TempDir dir("observe_csv_error");
  const std::string bad = dir.file("no/such/dir/t.csv");
  auto w = CsvWriter::open(bad);
  REQUIRE_FALSE(w.has_value());
  CHECK(w.error().message.find(bad) != std::string::npos);
  CHECK_THROWS_AS(CsvWriter{bad}, Error);
}
