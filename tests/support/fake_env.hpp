// An aoe::GetEnv over a fixed set of variables (nothing of the process's environment).
#ifndef AOE_TESTS_SUPPORT_FAKE_ENV_HPP
#define AOE_TESTS_SUPPORT_FAKE_ENV_HPP

#include <aoe/config/environment.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace aoe::test {

inline aoe::GetEnv fake_env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_FAKE_ENV_HPP
