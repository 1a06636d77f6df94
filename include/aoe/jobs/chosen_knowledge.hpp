// The policies chosen for one operator, per knowledge kind ("Schedule": {"block_dim": 32, ...}):
// what OPAT's report and its tuned model record. Immutable and shared: copies hold one list, so
// the operators of one computation (a bank hit has the values of the operator tuned before it)
// and the report and tuned model of one operator cost one list, not one each
// (docs/reliability.md#model-size).
#ifndef AOE_JOBS_CHOSEN_KNOWLEDGE_HPP
#define AOE_JOBS_CHOSEN_KNOWLEDGE_HPP

#include "aoe/space/value.hpp"

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace aoe {

/// Per knowledge kind, in order, the parameters in use: a read-only list of
/// (kind, [name = value, ...]) with the interface of a const std::vector, shared by its copies.
class ChosenKnowledge {
 public:
  using value_type = std::pair<std::string, std::vector<NamedValue>>;
  using const_iterator = std::vector<value_type>::const_iterator;

  ChosenKnowledge() = default;
  ChosenKnowledge(std::vector<value_type> kinds)  // NOLINT(google-explicit-constructor)
      : kinds_(kinds.empty() ? nullptr
                             : std::make_shared<const std::vector<value_type>>(std::move(kinds))) {}
  ChosenKnowledge(std::initializer_list<value_type> kinds)
      : ChosenKnowledge(std::vector<value_type>(kinds)) {}

  /// The list (empty when nothing was chosen).
  [[nodiscard]] const std::vector<value_type>& kinds() const noexcept {
    return kinds_ ? *kinds_ : no_kinds();
  }
  [[nodiscard]] const_iterator begin() const noexcept { return kinds().begin(); }
  [[nodiscard]] const_iterator end() const noexcept { return kinds().end(); }
  [[nodiscard]] std::size_t size() const noexcept { return kinds().size(); }
  [[nodiscard]] bool empty() const noexcept { return kinds().empty(); }
  [[nodiscard]] const value_type& operator[](std::size_t i) const { return kinds()[i]; }
  [[nodiscard]] const value_type& front() const { return kinds().front(); }

  /// Whether `other` holds the same list, not an equal one (a copy of this or of its copies).
  [[nodiscard]] bool shares_with(const ChosenKnowledge& other) const noexcept {
    return kinds_ == other.kinds_;
  }

  friend bool operator==(const ChosenKnowledge& a, const ChosenKnowledge& b) {
    return a.kinds_ == b.kinds_ || a.kinds() == b.kinds();
  }

 private:
  static const std::vector<value_type>& no_kinds() noexcept {
    static const std::vector<value_type> none;
    return none;
  }

  std::shared_ptr<const std::vector<value_type>> kinds_;
};

}  // namespace aoe

#endif  // AOE_JOBS_CHOSEN_KNOWLEDGE_HPP
