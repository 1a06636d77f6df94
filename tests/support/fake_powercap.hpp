// A powercap tree in a temporary directory, for the runners that read RAPL (aoe::Rapl): two
// packages, a sub-domain and a platform domain (neither added to the packages' figure), each
// counter a file that a test advances as a CPU's would.
#ifndef AOE_TESTS_SUPPORT_FAKE_POWERCAP_HPP
#define AOE_TESTS_SUPPORT_FAKE_POWERCAP_HPP

#include "support/temp_dir.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace aoe::test {

/// `root` holds intel-rapl:0 (package-0), intel-rapl:1 (package-1), intel-rapl:0:0 (core) and
/// intel-rapl:2 (psys), each counter at `start` µJ, wrapping at `range`.
struct FakePowercap {
  TempDir dir;
  std::filesystem::path root;
  std::uint64_t range = 1000000;
  explicit FakePowercap(const std::string& name, std::uint64_t start = 0)
      : dir("rapl_" + name), root(dir.path()) {
    domain("intel-rapl:0", "package-0", start);
    domain("intel-rapl:1", "package-1", start);
    domain("intel-rapl:0:0", "core", start);
    domain("intel-rapl:2", "psys", start);
  }

  void domain(const std::string& name_of_dir, const std::string& name, std::uint64_t start) {
    std::filesystem::create_directories(root / name_of_dir);
    std::ofstream(root / name_of_dir / "name") << name << "\n";
    std::ofstream(root / name_of_dir / "max_energy_range_uj") << range << "\n";
    std::ofstream(root / name_of_dir / "energy_uj") << start << "\n";
  }
  /// Adds microjoules to a domain's counter, wrapping at its range.
  void add(const std::string& name_of_dir, std::uint64_t uj) const {
    std::uint64_t now = 0;
    std::ifstream(root / name_of_dir / "energy_uj") >> now;
    std::ofstream(root / name_of_dir / "energy_uj") << (now + uj) % range << "\n";
  }
};

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_FAKE_POWERCAP_HPP
