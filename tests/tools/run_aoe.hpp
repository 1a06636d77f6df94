// Runs the `aoe` command in-process (aoe_tool::run) with these arguments and environment
// variables, capturing its exit code, stdout and stderr: shared by the tools' tests.
#ifndef AOE_TESTS_TOOLS_RUN_AOE_HPP
#define AOE_TESTS_TOOLS_RUN_AOE_HPP

#include "cli.hpp"

#include <atomic>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace aoe::test {

struct AoeRun {
  int code = 0;
  std::string out;
  std::string err;
};

inline AoeRun run_aoe(const std::vector<std::string>& args,
                      const std::map<std::string, std::string>& env) {
  std::vector<const char*> argv{"aoe"};
  for (const auto& a : args) argv.push_back(a.c_str());
  const aoe::GetEnv getenv = [env](const char* name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  std::ostringstream out;
  std::ostringstream err;
  std::atomic<bool> stop{false};
  const int code =
      aoe_tool::run(static_cast<int>(argv.size()), argv.data(), getenv, out, err, &stop, false);
  return {code, out.str(), err.str()};
}

}  // namespace aoe::test

#endif  // AOE_TESTS_TOOLS_RUN_AOE_HPP
