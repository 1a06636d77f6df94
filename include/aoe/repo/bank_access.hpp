// How a process shares an on-disk bank with others (the operator knowledge bank, the SGAT graph
// bank, the GDAT gradient-fusion bank): how long it waits for another writer's lock, and where
// the warnings about records it skips go (docs/reliability.md, "Locking").
#ifndef AOE_REPO_BANK_ACCESS_HPP
#define AOE_REPO_BANK_ACCESS_HPP

#include <chrono>
#include <functional>
#include <string>

namespace aoe {

/// Sharing settings of a bank. Aggregate: `aoe::BankAccess{.lock_timeout = 10s}`.
struct BankAccess {
  /// How long a store waits for the lock of a bank file held by another process before it
  /// fails with an error naming the lock file (TUNE_BANK_LOCK_TIMEOUT, default 300 s). Zero:
  /// one try.
  std::chrono::milliseconds lock_timeout = std::chrono::seconds(300);
  /// Receives one message per record skipped on load (a stored time that is not a positive
  /// finite number: file and key named) and per built-in bank file that cannot be read (named).
  /// Empty: the warnings are dropped (the records are skipped all the same).
  std::function<void(const std::string&)> on_warning{};
};

}  // namespace aoe

#endif  // AOE_REPO_BANK_ACCESS_HPP
