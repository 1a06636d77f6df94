// sim::RunnerMemo hands out, for an operator equal to an earlier one but for its name, the
// runner Runner::create would make: same space, default, measurements and failure messages
// (with its own name), without deriving them again. Different operators (any field but the
// name, or the knowledge kinds) get their own runner; failures are not remembered; the memo's
// size stays bounded.
#include "aoe/measure/simulator/runner_memo.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace simulator_runner_memo_test {  // apart from this area's other files in a unity build

namespace {

using aoe::DataType;
using aoe::Format;
using aoe::OperatorDesc;
using Sim = aoe::Runner<aoe::device::Simulator>;
using aoe::sim::Knowledge;

aoe::sim::Soc soc() { return aoe::sim::Soc::builtin("Ascend910A").value(); }

OperatorDesc matmul(const std::string& name, std::int64_t m) {
  OperatorDesc op;
  op.type = "MatMul+BiasAdd+Relu";
  op.name = name;
  op.members = {"MatMul", "BiasAdd", "Relu"};
  op.inputs = {{{m, 512}, DataType::float16, Format::ND},
               {{512, 256}, DataType::float16, Format::ND},
               {{256}, DataType::float16, Format::ND}};
  op.outputs = {{{m, 256}, DataType::float16, Format::ND}};
  return op;
}

/// Up to 300 configurations spread over the raw space (valid or not).
std::vector<aoe::Configuration> sample(const aoe::Space& space) {
  const auto raw = static_cast<std::uint64_t>(space.raw_size());
  std::vector<aoe::Configuration> out;
  for (std::uint64_t i = 0; i < 300 && i < raw; ++i) out.push_back(space.unrank(i * raw / 300));
  return out;
}

/// Every sampled configuration of both runners' spaces measures the same (value, status, message).
void check_same(const Sim& a, const Sim& b) {
  REQUIRE(a.space().dimensions() == b.space().dimensions());
  for (std::size_t d = 0; d < a.space().dimensions(); ++d) {
    CHECK(a.space().parameter(d).name() == b.space().parameter(d).name());
    CHECK(a.space().cardinality(d) == b.space().cardinality(d));
  }
  CHECK(a.default_configuration() == b.default_configuration());
  CHECK(a.op().name == b.op().name);
  for (const auto& c : sample(a.space())) {
    const auto ma = a.evaluate(c);
    const auto mb = b.evaluate(c);
    CHECK(ma.ok() == mb.ok());
    CHECK(ma.value == mb.value);
    CHECK(ma.message == mb.message);
  }
}

}  // namespace

TEST_CASE("runner memo: an operator renamed shares the runner, measured as a new one") {
  aoe::sim::RunnerMemo memo(soc());
  const aoe::SimulatorOptions schedule{.knowledge = {Knowledge::schedule}};
  const auto first = memo.create(matmul("layer0", 1024), schedule);
  REQUIRE(first.has_value());
  CHECK(memo.hits() == 0);
  const auto again = memo.create(matmul("layer1", 1024), schedule);
  REQUIRE(again.has_value());
  CHECK(memo.hits() == 1);
  CHECK(memo.size() == 1);
  CHECK(again->op().name == "layer1");
  const auto fresh = Sim::create(soc(), matmul("layer1", 1024), schedule);
  REQUIRE(fresh.has_value());
  check_same(*again, *fresh);

  // the options other than the kinds are the new runner's own
  const auto slow =
      memo.create(matmul("layer2", 1024),
                  aoe::SimulatorOptions{.knowledge = {Knowledge::schedule}, .compile_seconds = 2});
  REQUIRE(slow.has_value());
  CHECK(memo.hits() == 2);
  CHECK(slow->options().compile_seconds == 2);
  CHECK(slow->evaluate(slow->default_configuration()).cost ==
        doctest::Approx(2 + slow->evaluate(slow->default_configuration()).value));
  const auto bad =
      memo.create(matmul("layer3", 1024),
                  aoe::SimulatorOptions{.knowledge = {Knowledge::schedule}, .measure_latency = -1});
  CHECK(bad.has_error());
}

TEST_CASE("runner memo: failure messages name the operator measured") {
  aoe::sim::RunnerMemo memo(soc());
  const aoe::SimulatorOptions schedule{.knowledge = {Knowledge::schedule}};
  REQUIRE(memo.create(matmul("first", 4096), schedule).has_value());
  const auto second = memo.create(matmul("second", 4096), schedule);
  REQUIRE(second.has_value());
  CHECK(memo.hits() == 1);
  const auto fresh = Sim::create(soc(), matmul("second", 4096), schedule).value();
  bool failure = false;
  for (const auto& c : sample(second->space())) {
    const auto m = second->evaluate(c);
    if (m.ok()) continue;
    failure = true;
    CHECK(m.message.find("'second'") != std::string::npos);
    CHECK(m.message == fresh.evaluate(c).message);
    break;
  }
  CHECK(failure);  // some tile of this space does not fit a buffer
}

TEST_CASE("runner memo: any difference but the name is another operator") {
  aoe::sim::RunnerMemo memo(soc());
  const aoe::SimulatorOptions schedule{.knowledge = {Knowledge::schedule}};
  std::vector<OperatorDesc> ops;
  ops.push_back(matmul("a", 1024));
  ops.push_back(matmul("a", 2048));  // a shape
  ops.push_back(matmul("a", 1024));
  ops.back().inputs[0].dtype = DataType::float32;
  ops.push_back(matmul("a", 1024));
  ops.back().inputs[1].format = Format::FRACTAL_NZ;
  ops.push_back(matmul("a", 1024));
  ops.back().attributes["transpose_b"] = true;
  ops.push_back(matmul("a", 1024));
  ops.back().attributes["transpose_b"] = false;
  ops.push_back(matmul("a", 1024));
  ops.back().members = {"MatMul", "BiasAdd"};
  ops.back().type = "MatMul+BiasAdd";
  std::size_t made = 0;
  for (const auto& op : ops) {
    const auto r = memo.create(op, schedule);
    const auto fresh = Sim::create(soc(), op, schedule);
    REQUIRE(r.has_value() == fresh.has_value());
    if (!r) {
      CHECK(r.error().message == fresh.error().message);
      continue;
    }
    ++made;
    check_same(*r, *fresh);
  }
  CHECK(made >= 5);
  CHECK(memo.hits() == 0);
  CHECK(memo.size() == made);
  // the same operator with other kinds
  const aoe::SimulatorOptions both{.knowledge = {Knowledge::schedule, Knowledge::format}};
  const auto r = memo.create(ops.front(), both);
  REQUIRE(r.has_value());
  CHECK(memo.hits() == 0);
  check_same(*r, Sim::create(soc(), ops.front(), both).value());
}

TEST_CASE("runner memo: failures are not remembered; the size is bounded") {
  aoe::sim::RunnerMemo memo(soc(), 4);
  const aoe::SimulatorOptions schedule{.knowledge = {Knowledge::schedule}};
  OperatorDesc odd = matmul("x", 64);
  odd.type = "FancyOp";
  odd.members.clear();
  const auto e1 = memo.create(odd, schedule);
  REQUIRE(e1.has_error());
  odd.name = "y";
  const auto e2 = memo.create(odd, schedule);
  REQUIRE(e2.has_error());
  CHECK(e2.error().message.find("'y'") != std::string::npos);
  CHECK(memo.size() == 0);
  for (std::int64_t m = 1; m <= 10; ++m) {
    REQUIRE(memo.create(matmul("m", 16 * m), schedule).has_value());
    CHECK(memo.size() <= 4);
  }
  CHECK(memo.hits() == 0);
}

}  // namespace simulator_runner_memo_test
