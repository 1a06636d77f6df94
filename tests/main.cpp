// The doctest main of every test executable, compiled once (target aoe_test_main) and linked
// into each aoe_test_<area>. Test files include <doctest/doctest.h> and define no main.
//
// A listener counts the test cases that ran and those that called aoe::test::skip()
// (support/skip.hpp); when every case that ran was skipped, the process exits with 77, which
// ctest (SKIP_RETURN_CODE) and Meson report as "skipped".
#define DOCTEST_CONFIG_IMPLEMENT
#include "support/skip.hpp"

#include <doctest/doctest.h>

namespace {

struct CaseCounts {
  int ran = 0;
  int skipped = 0;
};

CaseCounts& counts() {
  static CaseCounts c;
  return c;
}

// Only the hooks a listener needs do anything; doctest requires every one to be defined.
struct SkipListener : doctest::IReporter {
  explicit SkipListener(const doctest::ContextOptions& /*options*/) {}
  void report_query(const doctest::QueryData& /*data*/) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& /*stats*/) override {}
  void test_case_start(const doctest::TestCaseData& /*data*/) override {
    aoe::test::current_case_skipped() = false;
  }
  void test_case_reenter(const doctest::TestCaseData& /*data*/) override {}
  void test_case_end(const doctest::CurrentTestCaseStats& /*stats*/) override {
    ++counts().ran;
    if (aoe::test::current_case_skipped()) ++counts().skipped;
  }
  void test_case_exception(const doctest::TestCaseException& /*e*/) override {}
  void subcase_start(const doctest::SubcaseSignature& /*signature*/) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData& /*data*/) override {}
  void log_message(const doctest::MessageData& /*data*/) override {}
  void test_case_skipped(const doctest::TestCaseData& /*data*/) override {}
};

}  // namespace

DOCTEST_REGISTER_LISTENER("aoe_skip", 1, SkipListener);

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit()) return result;
  if (result == 0 && counts().ran > 0 && counts().skipped == counts().ran) {
    return aoe::test::skip_exit_code;
  }
  return result;
}
