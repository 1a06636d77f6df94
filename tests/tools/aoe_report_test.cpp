// `aoe --report` (docs/reports.md), in-process on the bundled ResNet-50: each job writes its
// trace, op_summary CSV and HTML next to the result file; the trace is Chrome trace JSON whose
// operators sum to the result file's model times and whose pipes sit inside their operators;
// the CSV has one row per operator execution with the result file's times; headless Chromium
// renders the page without a script error, keeps a screenshot under build/, and the page shows
// the result file's figures. --report=off writes none of them.
#include "run_aoe.hpp"
#include "support/csv.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"
#include <aoe/report/job_reports.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace tools_aoe_report_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

using aoe::test::parse_csv;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Job {
  aoe::test::AoeRun run;
  fs::path work;
  fs::path result;
  boost::json::object body;  ///< the result file's "OPAT" / "SGAT" / "GDAT" object
  fs::path trace, csv, html;
};

fs::path find(const fs::path& dir, std::string_view prefix, std::string_view suffix) {
  fs::path found;
  for (const auto& e : fs::directory_iterator(dir)) {
    const auto n = e.path().filename().string();
    if (n.starts_with(prefix) && n.ends_with(suffix)) found = e.path();
  }
  return found;
}

Job run_job(const aoe::test::TempDir& dir, int job_type, std::vector<std::string> extra = {}) {
  fs::create_directories(dir.path() / "bank");
  Job j;
  j.work = dir.path() / "work";
  const std::map<std::string, std::string> env{{"TUNE_BANK_PATH", (dir.path() / "bank").string()},
                                               {"ASCEND_WORK_PATH", j.work.string()},
                                               {"TUNING_PARALLEL_NUM", "2"}};
  std::vector<std::string> args{
      "--model=" + std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/resnet50.json",
      "--job_type=" + std::to_string(job_type), "--budget=16", "--progress_bar=off"};
  args.insert(args.end(), extra.begin(), extra.end());
  j.run = aoe::test::run_aoe(args, env);
  const char* job = job_type == 1 ? "sgat" : job_type == 2 ? "opat" : "gdat";
  j.result = find(j.work, std::string("aoe_result_") + job + "_", ".json");
  if (!j.result.empty()) {
    const auto root = boost::json::parse(read(j.result)).as_object();
    std::string upper = job;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    j.body = root.begin()->value().as_array()[1].as_object().at(upper).as_object();
  }
  j.trace = find(j.work, "resnet50_", "_trace.json");
  j.csv = find(j.work, "resnet50_", "_op_summary.csv");
  j.html = find(j.work, "resnet50_", "_report.html");
  return j;
}

/// `run_job` that must succeed and write its result file, trace and page (and, for OPAT and
/// SGAT, the op_summary CSV).
Job run_job_ok(const aoe::test::TempDir& dir, int job_type) {
  Job j = run_job(dir, job_type);
  INFO(j.run.err);
  REQUIRE(j.run.code == 0);
  REQUIRE(!j.result.empty());
  REQUIRE(!j.trace.empty());
  if (job_type != 4) REQUIRE(!j.csv.empty());
  REQUIRE(!j.html.empty());
  return j;
}

double ms(const boost::json::object& o, std::string_view key) { return o.at(key).as_double(); }

/// Checks the Chrome trace and returns, per pid, the sum of its operator events' durations (us).
std::map<std::int64_t, double> check_trace(const fs::path& file, std::string_view operator_cat) {
  const auto doc = boost::json::parse(read(file)).as_object();
  const auto& events = doc.at("traceEvents").as_array();
  REQUIRE(!events.empty());
  std::map<std::int64_t, double> sums;
  struct Span {
    double ts, end;
  };
  std::map<std::string, Span> ops;  // pid/name -> span
  std::size_t pipes_checked = 0;
  for (const auto& v : events) {
    const auto& e = v.as_object();
    for (const char* k : {"ph", "ts", "dur", "pid", "tid"}) {
      INFO(boost::json::serialize(e));
      REQUIRE(e.contains(k));
    }
    const auto ph = e.at("ph").as_string();
    CHECK((ph == "X" || ph == "M"));
    if (ph != "X") continue;
    CHECK(e.at("dur").as_double() >= 0);
    const auto pid = e.at("pid").as_int64();
    const auto cat = e.at("cat").as_string();
    const double ts = e.at("ts").as_double(), dur = e.at("dur").as_double();
    if (cat == operator_cat) {
      sums[pid] += dur;
      ops[std::to_string(pid) + "/" + std::string(e.at("name").as_string())] = {ts, ts + dur};
    }
  }
  // The operators of a phase back to back on the stream from 0, as the job times them.
  std::map<std::int64_t, std::vector<Span>> stream;
  for (const auto& v : events) {
    const auto& e = v.as_object();
    if (e.at("ph").as_string() != "X" || e.at("cat").as_string() != operator_cat) continue;
    const double ts = e.at("ts").as_double();
    stream[e.at("pid").as_int64()].push_back({ts, ts + e.at("dur").as_double()});
  }
  for (auto& [pid, spans] : stream) {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.ts < b.ts; });
    double end = 0;
    for (const auto& sp : spans) {
      CHECK(sp.ts == doctest::Approx(end).epsilon(1e-9));
      end = sp.end;
    }
  }
  // Every pipe event inside its operator.
  for (const auto& v : events) {
    const auto& e = v.as_object();
    if (e.at("ph").as_string() != "X" || e.at("cat").as_string() != "pipe") continue;
    const auto key = std::to_string(e.at("pid").as_int64()) + "/" +
                     std::string(e.at("args").as_object().at("operator").as_string());
    REQUIRE(ops.count(key) == 1);
    const auto& op = ops[key];
    const double ts = e.at("ts").as_double(), end = ts + e.at("dur").as_double();
    INFO(key);
    CHECK(ts >= op.ts - 1e-6 * (1 + op.end));
    CHECK(end <= op.end + 1e-6 * (1 + op.end));
    ++pipes_checked;
  }
  if (operator_cat == "operator" && ops.size() > 0 &&
      doc.at("otherData").as_object().at("job").as_string() == "OPAT") {
    CHECK(pipes_checked > 0);
  }
  return sums;
}

/// Every timed event of a trace says whether it is simulated: the job's own events (`job_cat`:
/// operators, subgraphs, the iteration) as `job_simulated`, the timing model's breakdown (launch,
/// TransData, pipes) and GDAT's compute and all-reduce always simulated; otherData says it too.
void check_trace_labels(const boost::json::object& doc, std::string_view job_cat,
                        bool job_simulated) {
  const auto& other = doc.at("otherData").as_object();
  CHECK(other.at("simulated").as_bool() == job_simulated);
  CHECK(other.at("timing").as_object().at("kind").as_string() ==
        (job_simulated ? "simulated" : "measured"));
  std::size_t labelled = 0;
  for (const auto& v : doc.at("traceEvents").as_array()) {
    const auto& e = v.as_object();
    if (e.at("ph").as_string() != "X") continue;
    INFO(boost::json::serialize(e));
    REQUIRE(e.contains("args"));
    const auto& args = e.at("args").as_object();
    REQUIRE(args.contains("simulated"));
    const bool job_event = e.at("cat").as_string() == job_cat;
    CHECK(args.at("simulated").as_bool() == (job_event ? job_simulated : true));
    ++labelled;
  }
  CHECK(labelled > 0);
}

/// The text of the element with this id in a DOM dump.
std::string element_text(const std::string& dom, const std::string& id) {
  const auto at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return {};
  const auto open = dom.find('>', at);
  const auto close = dom.find('<', open);
  return dom.substr(open + 1, close - open - 1);
}

/// Debian's `chromium`, if installed.
std::string chromium() {
  for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (fs::exists(c)) return c;
  }
  return {};
}
bool chromium_available() { return !chromium().empty(); }

/// Headless Chromium on `html`: the DOM after the scripts ran, and a screenshot into `png`;
/// fails the test on a console message (a script error).
std::string chromium_dom(const fs::path& html, const fs::path& png) {
  const std::string browser = chromium();
  const fs::path dom = png.parent_path() / (png.stem().string() + ".dom.html");
  const fs::path log = png.parent_path() / (png.stem().string() + ".log");
  const std::string flags =
      " --headless --disable-gpu --no-sandbox --hide-scrollbars --no-first-run "
      "--disable-extensions --enable-logging=stderr --v=0 --user-data-dir='" +
      (png.parent_path() / (png.stem().string() + ".profile")).string() + "' ";
  const std::string url = "file://" + fs::absolute(html).string();
  const std::string dump = browser + flags + "--dump-dom '" + url + "' > '" + dom.string() +
                           "' 2> '" + log.string() + "'";
  REQUIRE(std::system(dump.c_str()) == 0);
  const std::string shot = browser + flags + "--window-size=1240,1800 --screenshot='" +
                           png.string() + "' '" + url + "' >> '" + log.string() + "' 2>&1";
  REQUIRE(std::system(shot.c_str()) == 0);
  const std::string console = read(log);
  INFO(console);
  CHECK(console.find("Uncaught") == std::string::npos);
  CHECK(console.find("CONSOLE") == std::string::npos);  // nothing logged by the page
  CHECK(fs::file_size(png) > 10000);
  return read(dom);
}

/// Where screenshots are kept (a CI artefact): the test's working directory, under build/.
fs::path screenshot(std::string_view name) { return fs::current_path() / std::string(name); }

}  // namespace

TEST_CASE("aoe --report: OPAT's trace, op_summary and HTML match the result file") {
  aoe::test::TempDir dir("report_opat");
  const Job j = run_job_ok(dir, 2);
  // Named after the result file's timestamp, as the tuned model.
  const auto ts = j.result.filename().string().substr(std::string("aoe_result_opat_").size(), 18);
  CHECK(j.html.filename().string() == "resnet50_" + ts + "_report.html");
  CHECK(j.trace.filename().string() == "resnet50_" + ts + "_trace.json");
  CHECK(j.csv.filename().string() == "resnet50_" + ts + "_op_summary.csv");
  const double before = ms(j.body, "model_baseline_performance(ms)");
  const double after = ms(j.body, "model_result_performance(ms)");

  // Every file says where its times came from: the simulator's timing model.
  const auto& timing = j.body.at("timing").as_object();
  CHECK(timing.at("kind").as_string() == "simulated");
  CHECK(std::string(timing.at("source").as_string()).starts_with("openaoe Ascend AI Core model "));
  check_trace_labels(boost::json::parse(read(j.trace)).as_object(), "operator", true);
  CHECK(j.run.out.find(" ms, simulated (openaoe Ascend AI Core model ") != std::string::npos);
  const std::string last = j.run.out.substr(j.run.out.rfind('\n', j.run.out.size() - 2) + 1);
  CHECK(last.starts_with("resnet50 process finished. Performance improved by "));
  CHECK(last.ends_with("% (simulated)\n"));

  const auto sums = check_trace(j.trace, "operator");
  REQUIRE(sums.size() == 2);
  CHECK(sums.at(1) / 1e3 == doctest::Approx(before).epsilon(1e-7));
  CHECK(sums.at(2) / 1e3 == doctest::Approx(after).epsilon(1e-7));

  const auto rows = parse_csv(read(j.csv));
  REQUIRE(rows.size() > 2);
  const auto& header = rows[0];
  const auto col = [&](std::string_view name) {
    const auto it = std::find(header.begin(), header.end(), name);
    REQUIRE(it != header.end());
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t phase = col("Phase"), dur = col("Task Duration(us)"), name = col("Op Name");
  const std::size_t timing_col = col("Timing");
  CHECK(timing_col == header.size() - 1);  // the last column: msprof's come first
  const std::size_t total =
      static_cast<std::size_t>(j.body.at("repo_summary").as_object().at("total_num").as_int64());
  CHECK(rows.size() - 1 == 2 * total);  // one row per operator execution, before and after
  std::map<std::string, double> sum;
  std::map<std::string, double> before_us;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(rows[i].size() == header.size());
    CHECK(rows[i][timing_col] == "simulated");
    sum[rows[i][phase]] += std::stod(rows[i][dur]);
    if (rows[i][phase] == "before tuning") before_us[rows[i][name]] = std::stod(rows[i][dur]);
  }
  CHECK(sum["before tuning"] / 1e3 == doctest::Approx(before).epsilon(1e-5));
  CHECK(sum["after tuning"] / 1e3 == doctest::Approx(after).epsilon(1e-5));
  // A modified operator's row has its performance_before_tune (the default) as duration.
  std::size_t matched = 0;
  for (const auto& v : j.body.at("repo_modified_operators").as_array()) {
    const auto& o = v.as_object();
    const auto& p = o.at("tune_performance").as_object().at("Schedule").as_object();
    if (p.at("update_mode").as_string() != "add") continue;
    const std::string op(o.at("op_name").as_string());
    REQUIRE(before_us.count(op) == 1);
    CHECK(before_us[op] ==
          doctest::Approx(p.at("performance_before_tune(us)").as_double()).epsilon(1e-5));
    ++matched;
  }
  CHECK(matched > 0);

  const std::string page = read(j.html);
  CHECK(page.find("simulated: Ascend910A timing model") != std::string::npos);
  CHECK(page.find("<h2>What is simulated</h2>") != std::string::npos);
  for (const char* remote : {"http://", "https://", "<link", " src=", "@import", "url("}) {
    INFO(remote);
    CHECK(page.find(remote) == std::string::npos);  // self-contained: nothing to fetch
  }
}

TEST_CASE("reports of a job on a device that measures: measured times, the model's breakdown") {
  const aoe::Graph graph{.name = "npu_model",
                         .nodes = {{.name = "mm",
                                    .type = "MatMul",
                                    .inputs = {{"x", {{256, 256}, aoe::DataType::float16}},
                                               {"w", {{256, 256}, aoe::DataType::float16}}},
                                    .outputs = {{"y", {{256, 256}, aoe::DataType::float16}}},
                                    .attributes = {}}}};
  aoe::OpatReport r;
  r.tuning_name = "npu_model";
  r.finished = true;
  r.timing = aoe::Timing{aoe::TimingKind::measured, "Ascend910B1, device 0, 24 AI Cores"};
  aoe::OpatOperatorReport op;
  op.op_name = "mm";
  op.op_type = "MatMul";
  op.default_us = 30;
  op.result_us = 20;
  r.operators.push_back(op);
  const auto soc = aoe::sim::Soc::builtin("Ascend910B1").value();
  const auto profile = aoe::report::opat_profile(graph, r, soc);
  CHECK(profile.timing == *r.timing);
  const auto trace = aoe::report::trace_json(profile, "OPAT");
  check_trace_labels(trace, "operator", false);
  std::set<std::string> simulated_cats;
  for (const auto& v : trace.at("traceEvents").as_array()) {
    const auto& e = v.as_object();
    if (e.at("ph").as_string() == "X" && e.at("args").as_object().at("simulated").as_bool())
      simulated_cats.insert(std::string(e.at("cat").as_string()));
  }
  CHECK(simulated_cats == std::set<std::string>{"overhead", "pipe"});  // launch, pipes
  const auto rows = parse_csv(aoe::report::op_summary_csv(profile, soc.split));
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].back() == "Timing");
  CHECK(rows[1].back() == "measured");
  CHECK(rows[2].back() == "measured");
  const std::string page = aoe::report::opat_html(r, profile, "aoe_result_opat_x.json");
  CHECK(page.find("measured: Ascend910B1, device 0, 24 AI Cores") != std::string::npos);
  CHECK(page.find("What is measured, what is simulated") != std::string::npos);
  CHECK(page.find("Every time on this page is") == std::string::npos);
  const auto body = aoe::to_json(r).begin()->value().as_array()[1].as_object().at("OPAT");
  CHECK(body.at("timing").at("kind").as_string() == "measured");
}

TEST_CASE("aoe --report: SGAT's subgraphs and GDAT's splits, and --report=off") {
  {
    aoe::test::TempDir dir("report_sgat");
    const Job j = run_job_ok(dir, 1);
    CHECK(j.body.at("timing").as_object().at("kind").as_string() == "simulated");
    check_trace_labels(boost::json::parse(read(j.trace)).as_object(), "operator", true);
    for (const auto& row : parse_csv(read(j.csv)))
      CHECK((row.back() == "Timing" || row.back() == "simulated"));
    CHECK(j.run.out.find(" ms, simulated (openaoe Ascend AI Core model ") != std::string::npos);
    const auto sums = check_trace(j.trace, "operator");
    REQUIRE(sums.size() == 2);
    CHECK(sums.at(1) / 1e3 ==
          doctest::Approx(ms(j.body, "model_baseline_performance(ms)")).epsilon(1e-6));
    CHECK(sums.at(2) / 1e3 ==
          doctest::Approx(ms(j.body, "model_result_performance(ms)")).epsilon(1e-6));
  }
  {
    aoe::test::TempDir dir("report_gdat");
    const Job j = run_job_ok(dir, 4);
    CHECK(j.csv.empty());  // a training step has no operator list
    const auto doc = boost::json::parse(read(j.trace)).as_object();
    CHECK(j.body.at("timing").as_object().at("source").as_string().starts_with(
        "openaoe GDAT iteration model "));
    check_trace_labels(doc, "iteration", true);
    CHECK(j.run.out.find("%, simulated (openaoe GDAT iteration model ") != std::string::npos);
    std::map<std::int64_t, double> iteration;
    std::size_t segments = 0;
    for (const auto& v : doc.at("traceEvents").as_array()) {
      const auto& e = v.as_object();
      for (const char* k : {"ph", "ts", "dur", "pid", "tid"}) REQUIRE(e.contains(k));
      if (e.at("ph").as_string() != "X") continue;
      if (e.at("cat").as_string() == "iteration") {
        iteration[e.at("pid").as_int64()] = e.at("dur").as_double();
      }
      if (e.at("cat").as_string() == "allreduce" && e.at("pid").as_int64() == 2) ++segments;
    }
    CHECK(iteration.at(1) / 1e3 ==
          doctest::Approx(ms(j.body, "model_baseline_performance(ms)")).epsilon(1e-6));
    CHECK(iteration.at(2) / 1e3 ==
          doctest::Approx(ms(j.body, "model_result_performance(ms)")).epsilon(1e-6));
    CHECK(static_cast<std::int64_t>(segments) ==
          j.body.at("split_strategy").as_object().at("segments").as_int64());
  }
  {
    aoe::test::TempDir dir("report_off");
    const Job j = run_job(dir, 2, {"--report=off"});
    REQUIRE(j.run.code == 0);
    CHECK(!j.result.empty());
    CHECK(j.trace.empty());
    CHECK(j.csv.empty());
    CHECK(j.html.empty());
    const Job bad = run_job(dir, 2, {"--report=maybe"});
    CHECK(bad.run.code == 2);
    CHECK(bad.run.err.find("--report") != std::string::npos);
  }
}

TEST_CASE(
    "aoe --report: headless Chromium renders each job's page with the result file's figures") {
  if (!chromium_available()) {
    aoe::test::skip("chromium is not installed (apt-get install chromium): the pages not opened");
    return;
  }
  for (const int job_type : {2, 1, 4}) {
    aoe::test::TempDir dir("report_chromium");
    const Job j = run_job_ok(dir, job_type);
    const char* name = job_type == 2 ? "opat" : job_type == 1 ? "sgat" : "gdat";
    const std::string dom = chromium_dom(j.html, screenshot(std::string(name) + "_report.png"));
    INFO(name);
    CHECK(dom.find("data-report-ready=\"yes\"") != std::string::npos);  // the script ran
    CHECK(std::stod(element_text(dom, "baseline-ms")) ==
          doctest::Approx(ms(j.body, "model_baseline_performance(ms)")).epsilon(1e-6));
    CHECK(std::stod(element_text(dom, "result-ms")) ==
          doctest::Approx(ms(j.body, "model_result_performance(ms)")).epsilon(1e-6));
    CHECK(element_text(dom, "improvement") ==
          std::string(j.body.at("model_performance_improvement").as_string()));
    const auto& summary = j.body.at("repo_summary").as_object();
    for (const char* k : {"add", "hit", "reserved", "unsatisfied", "update"}) {
      INFO(k);
      CHECK(element_text(dom, std::string("repo-") + k) ==
            std::to_string(summary.at(std::string("repo_") + k + "_num").as_int64()));
    }
    CHECK(dom.find("id=\"timeline-svg\"") != std::string::npos);
  }
}

}  // namespace tools_aoe_report_test
