// A temporary directory for a test, removed with everything in it when the test ends, and the
// two file helpers the tests share (write a text, read it back).
#ifndef AOE_TESTS_SUPPORT_TEMP_DIR_HPP
#define AOE_TESTS_SUPPORT_TEMP_DIR_HPP

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <system_error>

namespace aoe::test {

/// Writes `text` to `file` (bytes as they are) and returns its path.
inline std::filesystem::path write_text(const std::filesystem::path& file,
                                        const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
  return file;
}

/// The bytes of `file` ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

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
  /// The environment of an `aoe` job whose bank (bank/, created) and work directory (work/) are
  /// in this directory.
  [[nodiscard]] std::map<std::string, std::string> job_env() const {
    std::filesystem::create_directories(path_ / "bank");
    return {{"TUNE_BANK_PATH", (path_ / "bank").string()},
            {"ASCEND_WORK_PATH", (path_ / "work").string()}};
  }
  /// Writes `text` to `name` inside the directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    return write_text(path_ / name, text).string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_TEMP_DIR_HPP
