// aoe-bench --protocol: the protocol file's errors name the file and the field; a run gives the
// tuning part and the held-out part each its own experiment, table and JSON.
#include "protocol.hpp"
#include "replay/replay_cache.hpp"
#include "support/temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace tools_aoe_bench_protocol_test {  // apart from this area's other files in a unity build

namespace {

std::string protocol_text(const std::string& family, const std::string& device,
                          const std::string& spaces) {
  return R"({"held_out_family": ")" + family + R"(", "held_out_device": ")" + device +
         R"(", "spaces": [)" + spaces + "]}";
}

const std::string three_spaces =
    R"({"file": "k_d1.json", "family": "k", "device": "d1"},
       {"file": "k_d2.json", "family": "k", "device": "d2"},
       {"file": "m_d1.json", "family": "m", "device": "d1"})";

}  // namespace

TEST_CASE("aoe-bench --protocol: the file's parts, and its errors naming the field") {
  aoe::test::TempDir dir("aoe_bench_protocol_file");
  const auto good =
      aoe_bench::read_protocol(dir.write("p.json", protocol_text("m", "d2", three_spaces)));
  REQUIRE(good.has_value());
  REQUIRE(good->spaces.size() == 3);
  CHECK_FALSE(good->held_out(good->spaces[0]));  // k on d1: the tuning part
  CHECK(good->held_out(good->spaces[1]));        // the held-out device
  CHECK(good->held_out(good->spaces[2]));        // the held-out family

  const std::vector<std::pair<std::string, std::string>> bad{
      {R"({"held_out_device": "d2", "spaces": [)" + three_spaces + "]}",
       ": /held_out_family: missing"},
      {protocol_text("m", "d2", R"({"file": "a", "family": "m", "device": 7})"),
       ": /spaces/0/device: expected a non-empty text"},
      {protocol_text("m", "d2", three_spaces + R"(, {"file": "k_d1.json", "family": "k",
       "device": "d3"})"),
       ": /spaces/3/file: 'k_d1.json' is listed twice"},
      {protocol_text("x", "d2", three_spaces), ": /held_out_family: no space is of family 'x'"},
      {protocol_text("m", "d9", three_spaces), ": /held_out_device: no space is on device 'd9'"},
      {protocol_text("k", "d1", three_spaces),
       ": /spaces: every space is held out: the tuning part would be empty"},
      {protocol_text("m", "d2", ""), ": /spaces: expected a non-empty array"},
  };
  for (const auto& [text, expected] : bad) {
    CAPTURE(text);
    const std::string path = dir.write("bad.json", text);
    const auto read = aoe_bench::read_protocol(path);
    REQUIRE_FALSE(read.has_value());
    CHECK(read.error().message.find("--protocol: " + path + expected) != std::string::npos);
  }
  const auto missing = aoe_bench::read_protocol(dir.file("none.json"));
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message.find("none.json") != std::string::npos);
}

#ifdef AOE_TOOL_AOE_BENCH_PATH
TEST_CASE("aoe-bench --protocol: each part is its own experiment; bad usage is exit 2") {
  aoe::test::TempDir dir("aoe_bench_protocol_run");
  for (const char* name : {"k_d1.json", "k_d2.json", "m_d1.json"}) {
    dir.write(name, aoe::test::kernel_tuner_cache(aoe::test::tiny_entries()));
  }
  const std::string protocol = dir.write("p.json", protocol_text("m", "d2", three_spaces));
  const auto bench = [&](const std::string& flags) {
    const std::string cmd = std::string(AOE_TOOL_AOE_BENCH_PATH) +
                            " --strategy random,annealing --budget 4 --repeats 3 --seed 1 " +
                            flags + " > " + dir.file("out.txt") + " 2> " + dir.file("err.txt");
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  REQUIRE(bench("--protocol " + protocol + " --datasets " + dir.path().string() + " --json " +
                dir.file("r.json")) == 0);
  const auto json = boost::json::parse(aoe::test::read_text(dir.file("r.json"))).as_object();
  const auto& about = json.at("protocol").as_object();
  CHECK(about.at("held_out_family").as_string() == "m");
  CHECK(about.at("tuning").as_array().size() == 1);
  CHECK(about.at("held_out").as_array().size() == 2);
  CHECK(json.at("tuning").at("inputs").as_array().size() == 1);
  CHECK(json.at("held_out").at("inputs").as_array().size() == 2);
  CHECK(json.at("held_out").at("summary").as_array().size() == 2);  // random, annealing
  const std::string out = aoe::test::read_text(dir.file("out.txt"));
  CHECK(out.find("== tuning part: 1 spaces") != std::string::npos);
  CHECK(out.find("== held-out part (family m, device d2): 2 spaces") != std::string::npos);
  CHECK(out.find("  annealing: f@25") == std::string::npos);  // the budget is 4: no f@25
  CHECK(out.find("mean over the part's spaces:") != std::string::npos);

  CHECK(bench("--protocol " + protocol + " --json " + dir.file("r.json")) == 2);  // no datasets
  CHECK(bench("--protocol " + protocol + " --datasets " + dir.path().string() + " --input " +
              dir.file("k_d1.json") + " --json " + dir.file("r.json")) == 2);
  CHECK(bench("--json " + dir.file("r.json")) == 2);
  CHECK(aoe::test::read_text(dir.file("err.txt")).find("expected --input or --protocol") !=
        std::string::npos);
  CHECK(bench("--protocol " + protocol + " --datasets " + dir.path().string() + " --plot " +
              dir.file("p.svg") + " --json " + dir.file("r.json")) == 2);
  CHECK(bench("--protocol " + dir.file("none.json") + " --datasets " + dir.path().string() +
              " --json " + dir.file("r.json")) == 3);
}
#endif

}  // namespace tools_aoe_bench_protocol_test
