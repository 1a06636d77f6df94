// A flat hash table from names (views, not copies) to dense ids 0, 1, 2, ... in order of first
// insertion: what GraphIndex and the tuned model writer number a graph's tensors with. Two
// arrays instead of a heap node per name: the slots (open addressing, linear probing; 8 bytes
// each, a 32-bit hash beside the id, so a probe reads a name only on a hash match) and the names
// by id. Building it for a graph of 10^6 tensors costs no allocation per tensor and about 30 MB
// (docs/reliability.md#model-size).
#ifndef AOE_GRAPH_NAME_TABLE_HPP
#define AOE_GRAPH_NAME_TABLE_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe::detail {

class NameTable {
 public:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

  /// Room for `names` names without growing.
  void reserve(std::size_t names) {
    names_.reserve(names);
    if (slots_.size() / 2 < names) rehash(names);
  }

  /// The id of `name`, adding it (with the next id) when new; `second` is true when added.
  /// The characters `name` views must outlive the table.
  std::pair<std::size_t, bool> insert(std::string_view name) {
    if (2 * (names_.size() + 1) > slots_.size()) rehash(names_.size() + 1);
    const std::uint32_t h = hash(name);
    for (std::size_t s = h & mask_;; s = (s + 1) & mask_) {
      Slot& slot = slots_[s];
      if (slot.id == empty) {
        if (names_.size() >= empty) throw std::length_error("aoe::detail::NameTable: 2^32 names");
        slot = Slot{h, static_cast<std::uint32_t>(names_.size())};
        names_.push_back(name);
        return {slot.id, true};
      }
      if (slot.hash == h && names_[slot.id] == name) return {slot.id, false};
    }
  }

  /// The id of `name`, or npos.
  [[nodiscard]] std::size_t find(std::string_view name) const {
    if (names_.empty()) return npos;
    const std::uint32_t h = hash(name);
    for (std::size_t s = h & mask_;; s = (s + 1) & mask_) {
      const Slot& slot = slots_[s];
      if (slot.id == empty) return npos;
      if (slot.hash == h && names_[slot.id] == name) return slot.id;
    }
  }

  [[nodiscard]] std::size_t size() const noexcept { return names_.size(); }

 private:
  static constexpr std::uint32_t empty = std::numeric_limits<std::uint32_t>::max();
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t id = empty;
  };

  [[nodiscard]] static std::uint32_t hash(std::string_view s) noexcept {
    const auto h = static_cast<std::uint64_t>(std::hash<std::string_view>{}(s));  // every byte
    return static_cast<std::uint32_t>(h ^ (h >> 32));
  }

  /// At least `names` slots' worth at a load factor of at most 1/2 (a power of two).
  void rehash(std::size_t names) {
    std::size_t cap = 16;
    while (cap / 2 < names) cap *= 2;
    std::vector<Slot> old(cap);
    old.swap(slots_);
    mask_ = cap - 1;
    for (const Slot& slot : old) {
      if (slot.id == empty) continue;
      std::size_t s = slot.hash & mask_;
      while (slots_[s].id != empty) s = (s + 1) & mask_;
      slots_[s] = slot;
    }
  }

  std::vector<Slot> slots_;
  std::vector<std::string_view> names_;  ///< by id
  std::size_t mask_ = 0;
};

}  // namespace aoe::detail

#endif  // AOE_GRAPH_NAME_TABLE_HPP
