// A repository that lives as long as the process: the default for library users.
#ifndef AOE_TUNER_MEMORY_REPOSITORY_HPP
#define AOE_TUNER_MEMORY_REPOSITORY_HPP

#include "aoe/core/error.hpp"
#include "aoe/vocab/record.hpp"
#include "aoe/vocab/transfer.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <vector>

namespace aoe {

/// Records by key in memory. Keeps the better of two records for one key (lower value).
class MemoryRepository {
 public:
  [[nodiscard]] Result<std::optional<Record>> lookup(const TuningKey& key) const {
    const auto it = records_.find(key);
    if (it == records_.end()) return std::optional<Record>();
    return std::optional<Record>(it->second);
  }

  Result<StoreOutcome> store(const Record& record) {
    const auto it = records_.find(record.key);
    if (it == records_.end()) {
      records_.emplace(record.key, record);
      return StoreOutcome::added;
    }
    if (record.value < it->second.value) {
      it->second = record;
      return StoreOutcome::updated;
    }
    return StoreOutcome::kept;
  }

  /// The records of `key.problem` on other devices than `key.device`, one source each (its
  /// winner), by device (aoe::transfer_repository, docs/transfer.md).
  [[nodiscard]] Result<std::vector<TransferSource>> transfer_sources(const TuningKey& key) const {
    std::vector<TransferSource> out;
    for (auto it = records_.lower_bound(TuningKey{key.problem, {}});
         it != records_.end() && it->first.problem == key.problem; ++it) {
      if (it->first.device == key.device) continue;
      out.push_back({it->first.device, {{it->second.configuration, it->second.value}}});
    }
    return out;
  }

  [[nodiscard]] std::size_t size() const noexcept { return records_.size(); }
  [[nodiscard]] const std::map<TuningKey, Record>& records() const noexcept { return records_; }

 private:
  std::map<TuningKey, Record> records_;
};

}  // namespace aoe

#endif  // AOE_TUNER_MEMORY_REPOSITORY_HPP
