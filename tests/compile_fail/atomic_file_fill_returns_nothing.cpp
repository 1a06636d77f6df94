// EXPECT: satisfaction of 'atomic_file_fill<|does not satisfy 'atomic_file_fill'
// A fill of write_file_atomically must say whether it could make the content (Result<void>):
// one that returns nothing is rejected, and the message names the concept.
#include <aoe/io/atomic_file.hpp>

int main() {
#ifdef AOE_SHOULD_FAIL
  const auto fill = [](aoe::AtomicFileSink& out) { out.append("{}"); };
#else
  const auto fill = [](aoe::AtomicFileSink& out) -> aoe::Result<void> {
    out.append("{}");
    return {};
  };
#endif
  (void)aoe::write_file_atomically("out.json", fill);
}
