// A temporary directory for a test, removed with everything in it when the test ends.
#ifndef AOE_TESTS_SUPPORT_TEMP_DIR_HPP
#define AOE_TESTS_SUPPORT_TEMP_DIR_HPP

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace aoe::test {

/// `<tmp>/aoe_test_<tag>_<pid>`, created empty; removed (permissions restored first) on
/// destruction. The pid keeps test executables that run in parallel apart.
class TempDir {
 public:
  explicit TempDir(const std::string& tag)
      : path_(std::filesystem::temp_directory_path() /
              ("aoe_test_" + tag + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// The path of `name` inside the directory.
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }
  /// Writes `text` to `name` inside the directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_TEMP_DIR_HPP
