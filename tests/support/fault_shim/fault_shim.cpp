// A test shim loaded with LD_PRELOAD (docs/reliability.md, "When the disk fails"): it counts the
// calls of open, write, fsync, rename, unlink, flock and mkdir that touch files under the
// directories of AOE_FAULT_UNDER, and makes the Nth of them fail with a chosen errno (ENOSPC,
// EIO, EROFS, EDQUOT, EINTR, EACCES) or, for a write, write only part of what it was given.
// Named in AOE_FAULT_CALLS, it also counts the calls SQLite writes its database through
// (scripts/fault_injection_sqlite.py): pwrite (pwrite, pwrite64; a short pwrite writes half),
// fdatasync, ftruncate (ftruncate, ftruncate64) and fcntl (its lock commands only: F_SETLK,
// F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW).
// Nothing else of the process is touched: stdout, the model and every file elsewhere are not
// counted. scripts/fault_injection.py drives it.
//
//   AOE_FAULT_UNDER=<dir>[:<dir>...]  absolute directories whose files count (required)
//   AOE_FAULT_NTH=<n>                 the counted call that fails, from 1 (0 or unset: none)
//   AOE_FAULT_ERRNO=<name>            ENOSPC, EIO, EROFS, EDQUOT, EINTR, EACCES or short
//   AOE_FAULT_PERSIST=1               every counted call from the Nth on fails (a disk that
//                                     stays full, a remount that stays read-only)
//   AOE_FAULT_CALLS=<call>[,...]      count only these calls (default: the seven above; also
//                                     pwrite, fdatasync, ftruncate, fcntl when named)
//   AOE_FAULT_LOG=<file>              appended at exit: "calls <counted>", and one line
//                                     "fault <n> <call> <errno name> <path>" per fault made
//   AOE_FAULT_TRACE=1                 and one line "call <n> <call> <path>" per counted call
//
// The real functions are found with dlsym(RTLD_NEXT); a descriptor counts when it was opened
// through this shim on a path that counts (write, fsync, flock, pwrite, fdatasync, ftruncate
// and fcntl take descriptors).
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
// The shim defines open and open64 (openat, openat64) itself: with 64-bit offsets requested (as
// Meson does) glibc's headers would make open another name of open64, defined twice.
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int max_fds = 65536;
constexpr int max_roots = 8;

struct Config {
  bool ready = false;
  char roots[max_roots][4096] = {};
  int root_count = 0;
  long nth = 0;
  bool persist = false;
  bool trace = false;
  int error = 0;  // the errno to set; 0 with short_write
  bool short_write = false;
  const char* name = "none";
  char calls[128] = "open,write,fsync,rename,unlink,flock,mkdir";
  char log[4096] = {};
};

Config config;
std::atomic<long> counted{0};
std::atomic<bool> tracked[max_fds];
pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;

template <class F>
F real(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));  // NOLINT(*-reinterpret-cast)
}

using WriteFn = ssize_t (*)(int, const void*, size_t);
using OpenFn = int (*)(const char*, int, ...);
using OpenatFn = int (*)(int, const char*, int, ...);

int errno_of(const char* name, bool& short_write) {
  short_write = false;
  if (std::strcmp(name, "ENOSPC") == 0) return ENOSPC;
  if (std::strcmp(name, "EIO") == 0) return EIO;
  if (std::strcmp(name, "EROFS") == 0) return EROFS;
  if (std::strcmp(name, "EDQUOT") == 0) return EDQUOT;
  if (std::strcmp(name, "EINTR") == 0) return EINTR;
  if (std::strcmp(name, "EACCES") == 0) return EACCES;
  if (std::strcmp(name, "short") == 0) short_write = true;
  return 0;
}

void configure() {
  const char* under = std::getenv("AOE_FAULT_UNDER");
  if (under == nullptr || *under == '\0') return;
  for (const char* p = under; *p != '\0' && config.root_count < max_roots;) {
    const char* end = std::strchr(p, ':');
    const size_t n = end == nullptr ? std::strlen(p) : static_cast<size_t>(end - p);
    if (n > 0 && n < sizeof config.roots[0]) {
      char* root = config.roots[config.root_count];
      std::memcpy(root, p, n);
      for (size_t k = n; k > 1 && root[k - 1] == '/'; --k) root[k - 1] = '\0';
      ++config.root_count;
    }
    if (end == nullptr) break;
    p = end + 1;
  }
  if (const char* v = std::getenv("AOE_FAULT_NTH")) config.nth = std::strtol(v, nullptr, 10);
  if (const char* v = std::getenv("AOE_FAULT_PERSIST")) config.persist = std::strcmp(v, "1") == 0;
  if (const char* v = std::getenv("AOE_FAULT_TRACE")) config.trace = std::strcmp(v, "1") == 0;
  if (const char* v = std::getenv("AOE_FAULT_ERRNO")) {
    config.name = v;
    config.error = errno_of(v, config.short_write);
    if (config.error == 0 && !config.short_write) config.nth = 0;  // unknown: no fault
  }
  if (const char* v = std::getenv("AOE_FAULT_CALLS"); v && std::strlen(v) < sizeof config.calls) {
    std::strcpy(config.calls, v);  // NOLINT(*-strcpy): length checked
  }
  if (const char* v = std::getenv("AOE_FAULT_LOG"); v && std::strlen(v) < sizeof config.log) {
    std::strcpy(config.log, v);  // NOLINT(*-strcpy): length checked
  }
  config.ready = config.root_count > 0;
}

__attribute__((constructor)) void start() { configure(); }

void append_log(const char* line) {
  if (config.log[0] == '\0') return;
  static const OpenFn real_open = real<OpenFn>("open");
  static const WriteFn real_write = real<WriteFn>("write");
  pthread_mutex_lock(&log_mutex);
  const int fd = real_open(config.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    real_write(fd, line, std::strlen(line));
    ::close(fd);
  }
  pthread_mutex_unlock(&log_mutex);
}

__attribute__((destructor)) void finish() {
  if (!config.ready) return;
  char line[64];
  std::snprintf(line, sizeof line, "calls %ld\n", counted.load());
  append_log(line);
}

bool under_roots(const char* path) {
  if (!config.ready || path == nullptr) return false;
  char absolute[8192];
  if (path[0] != '/') {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) == nullptr) return false;
    std::snprintf(absolute, sizeof absolute, "%s/%s", cwd, path);
    path = absolute;
  }
  for (int i = 0; i < config.root_count; ++i) {
    const size_t n = std::strlen(config.roots[i]);
    if (std::strncmp(path, config.roots[i], n) == 0 && (path[n] == '/' || path[n] == '\0')) {
      return true;
    }
  }
  return false;
}

bool fd_counts(int fd) { return config.ready && fd >= 0 && fd < max_fds && tracked[fd].load(); }

bool call_counts(const char* call) {
  const size_t n = std::strlen(call);
  for (const char* p = config.calls; (p = std::strstr(p, call)) != nullptr; p += n) {
    if ((p == config.calls || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return true;
  }
  return false;
}

/// Counts one call of `call` on `path`; true when it is the one to fail.
bool fault_now(const char* call, const char* path) {
  if (!call_counts(call)) return false;
  const long n = counted.fetch_add(1) + 1;
  char line[8300];
  if (config.trace) {
    std::snprintf(line, sizeof line, "call %ld %s %s\n", n, call, path != nullptr ? path : "-");
    append_log(line);
  }
  if (config.nth <= 0 || n < config.nth || (n > config.nth && !config.persist)) return false;
  std::snprintf(line, sizeof line, "fault %ld %s %s %s\n", n, call, config.name,
                path != nullptr ? path : "-");
  append_log(line);
  return true;
}

char* paths[max_fds];  // of the descriptors that count, under paths_mutex
pthread_mutex_t paths_mutex = PTHREAD_MUTEX_INITIALIZER;

/// The path `fd` was opened with, for the log ("-" when it is gone meanwhile).
const char* fd_path(int fd, char (&buf)[4096]) {
  pthread_mutex_lock(&paths_mutex);
  std::snprintf(buf, sizeof buf, "%s", paths[fd] != nullptr ? paths[fd] : "-");
  pthread_mutex_unlock(&paths_mutex);
  return buf;
}

void track(int fd, bool counts, const char* path) {
  if (fd < 0 || fd >= max_fds) return;
  tracked[fd].store(counts);
  pthread_mutex_lock(&paths_mutex);
  std::free(paths[fd]);
  paths[fd] = counts && path != nullptr ? ::strdup(path) : nullptr;
  pthread_mutex_unlock(&paths_mutex);
}

bool fd_fault(const char* call, int fd) {
  if (!fd_counts(fd)) return false;
  char buf[4096];
  return fault_now(call, fd_path(fd, buf));
}

int open_with(int dirfd, const char* path, int flags, mode_t mode, bool at) {
  static const OpenFn real_open = real<OpenFn>("open");
  static const OpenatFn real_openat = real<OpenatFn>("openat");
  const bool counts =
      (at && dirfd != AT_FDCWD && path[0] != '/') ? fd_counts(dirfd) : under_roots(path);
  if (counts && fault_now("open", path)) {
    errno = config.short_write ? EIO : config.error;
    return -1;
  }
  const int fd = at ? real_openat(dirfd, path, flags, mode) : real_open(path, flags, mode);
  track(fd, counts, path);
  return fd;
}

mode_t mode_of(int flags, va_list args) {
  return (flags & (O_CREAT | O_TMPFILE)) != 0 ? static_cast<mode_t>(va_arg(args, int)) : 0;
}

int fail_with_errno() {
  errno = config.short_write ? EIO : config.error;
  return -1;
}

// fcntl's third argument is an int or a pointer: passed on as the pointer-sized word it was.
using FcntlFn = int (*)(int, int, ...);
int fcntl_with(FcntlFn real_fcntl, int fd, int cmd, void* arg) {
  const bool lock = cmd == F_SETLK || cmd == F_SETLKW || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
  if (lock && fd_fault("fcntl", fd)) return fail_with_errno();
  return real_fcntl(fd, cmd, arg);
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_of(flags, args);
  va_end(args);
  return open_with(AT_FDCWD, path, flags, mode, false);
}

int open64(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_of(flags, args);
  va_end(args);
  return open_with(AT_FDCWD, path, flags, mode, false);
}

int __open_2(const char* path, int flags) { return open_with(AT_FDCWD, path, flags, 0, false); }
int __open64_2(const char* path, int flags) { return open_with(AT_FDCWD, path, flags, 0, false); }

int openat(int dirfd, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_of(flags, args);
  va_end(args);
  return open_with(dirfd, path, flags, mode, true);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_of(flags, args);
  va_end(args);
  return open_with(dirfd, path, flags, mode, true);
}

int close(int fd) {
  static const auto real_close = real<int (*)(int)>("close");
  if (fd_counts(fd)) track(fd, false, nullptr);
  return real_close(fd);
}

ssize_t write(int fd, const void* data, size_t size) {
  static const WriteFn real_write = real<WriteFn>("write");
  if (fd_fault("write", fd)) {
    if (!config.short_write) return fail_with_errno();
    return real_write(fd, data, size > 1 ? size / 2 : size);
  }
  return real_write(fd, data, size);
}

int fsync(int fd) {
  static const auto real_fsync = real<int (*)(int)>("fsync");
  if (fd_fault("fsync", fd)) return fail_with_errno();
  return real_fsync(fd);
}

int flock(int fd, int operation) {
  static const auto real_flock = real<int (*)(int, int)>("flock");
  if (fd_fault("flock", fd)) return fail_with_errno();
  return real_flock(fd, operation);
}

int rename(const char* from, const char* to) {
  static const auto real_rename = real<int (*)(const char*, const char*)>("rename");
  if ((under_roots(from) || under_roots(to)) && fault_now("rename", to)) return fail_with_errno();
  return real_rename(from, to);
}

int unlink(const char* path) {
  static const auto real_unlink = real<int (*)(const char*)>("unlink");
  if (under_roots(path) && fault_now("unlink", path)) return fail_with_errno();
  return real_unlink(path);
}

int unlinkat(int dirfd, const char* path, int flags) {
  static const auto real_unlinkat = real<int (*)(int, const char*, int)>("unlinkat");
  const bool counts = (dirfd != AT_FDCWD && path[0] != '/') ? fd_counts(dirfd) : under_roots(path);
  if (counts && fault_now("unlink", path)) return fail_with_errno();
  return real_unlinkat(dirfd, path, flags);
}

ssize_t pwrite(int fd, const void* data, size_t size, off_t offset) {
  static const auto real_pwrite = real<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite");
  if (fd_fault("pwrite", fd)) {
    if (!config.short_write) return fail_with_errno();
    return real_pwrite(fd, data, size > 1 ? size / 2 : size, offset);
  }
  return real_pwrite(fd, data, size, offset);
}

ssize_t pwrite64(int fd, const void* data, size_t size, off64_t offset) {
  static const auto real_pwrite64 =
      real<ssize_t (*)(int, const void*, size_t, off64_t)>("pwrite64");
  if (fd_fault("pwrite", fd)) {
    if (!config.short_write) return fail_with_errno();
    return real_pwrite64(fd, data, size > 1 ? size / 2 : size, offset);
  }
  return real_pwrite64(fd, data, size, offset);
}

int fdatasync(int fd) {
  static const auto real_fdatasync = real<int (*)(int)>("fdatasync");
  if (fd_fault("fdatasync", fd)) return fail_with_errno();
  return real_fdatasync(fd);
}

int ftruncate(int fd, off_t length) {
  static const auto real_ftruncate = real<int (*)(int, off_t)>("ftruncate");
  if (fd_fault("ftruncate", fd)) return fail_with_errno();
  return real_ftruncate(fd, length);
}

int ftruncate64(int fd, off64_t length) {
  static const auto real_ftruncate64 = real<int (*)(int, off64_t)>("ftruncate64");
  if (fd_fault("ftruncate", fd)) return fail_with_errno();
  return real_ftruncate64(fd, length);
}

int fcntl(int fd, int cmd, ...) {
  va_list args;
  va_start(args, cmd);
  void* arg = va_arg(args, void*);
  va_end(args);
  static const auto real_fcntl = real<FcntlFn>("fcntl");
  return fcntl_with(real_fcntl, fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...) {
  va_list args;
  va_start(args, cmd);
  void* arg = va_arg(args, void*);
  va_end(args);
  static const auto real_fcntl64 = real<FcntlFn>("fcntl64");
  return fcntl_with(real_fcntl64, fd, cmd, arg);
}

int mkdir(const char* path, mode_t mode) {
  static const auto real_mkdir = real<int (*)(const char*, mode_t)>("mkdir");
  if (under_roots(path) && fault_now("mkdir", path)) return fail_with_errno();
  return real_mkdir(path, mode);
}

}  // extern "C"
