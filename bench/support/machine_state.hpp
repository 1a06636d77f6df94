// The state of the machine a bench ran on, for its JSON: load, CPU model and clock where Linux
// shows them. Read at the start and at the end of a run, so that a reader can tell a quiet run
// from one that shared its cores.
#ifndef AOE_BENCH_SUPPORT_MACHINE_STATE_HPP
#define AOE_BENCH_SUPPORT_MACHINE_STATE_HPP

#include <boost/json/object.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <limits>
#include <string>
#include <thread>

namespace aoe_bench {

struct MachineState {
  std::string time;                                         ///< UTC, ISO 8601
  double load1 = std::numeric_limits<double>::quiet_NaN();  ///< /proc/loadavg
  double load5 = std::numeric_limits<double>::quiet_NaN();
  double load15 = std::numeric_limits<double>::quiet_NaN();
  std::string cpu_model;  ///< /proc/cpuinfo "model name" (empty where absent)
  unsigned cpus = 0;      ///< std::thread::hardware_concurrency
  /// Mean clock of the CPUs in MHz: cpufreq's scaling_cur_freq where readable, else
  /// /proc/cpuinfo's "cpu MHz" (NaN where neither is); `mhz_source` says which.
  double mhz = std::numeric_limits<double>::quiet_NaN();
  std::string mhz_source;
};

namespace detail {

inline double mean_cpufreq_mhz(unsigned cpus) {
  double sum = 0;
  unsigned read = 0;
  for (unsigned c = 0; c < cpus; ++c) {
    std::ifstream in("/sys/devices/system/cpu/cpu" + std::to_string(c) +
                     "/cpufreq/scaling_cur_freq");
    double khz = 0;
    if (in >> khz && khz > 0) {
      sum += khz / 1000;
      ++read;
    }
  }
  return read == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / read;
}

}  // namespace detail

[[nodiscard]] inline MachineState read_machine_state() {
  MachineState s;
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  s.time = stamp;
  std::ifstream("/proc/loadavg") >> s.load1 >> s.load5 >> s.load15;
  s.cpus = std::thread::hardware_concurrency();
  std::ifstream cpuinfo("/proc/cpuinfo");
  double mhz_sum = 0;
  unsigned mhz_count = 0;
  for (std::string line; std::getline(cpuinfo, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || colon + 2 > line.size()) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = line.substr(colon + 2);
    if (key == "model name" && s.cpu_model.empty()) s.cpu_model = value;
    if (key == "cpu MHz") {
      char* end = nullptr;
      const double mhz = std::strtod(value.c_str(), &end);
      if (end != value.c_str() && mhz > 0) {  // a line that is not a number is left out
        mhz_sum += mhz;
        ++mhz_count;
      }
    }
  }
  s.mhz = detail::mean_cpufreq_mhz(s.cpus);
  if (!std::isnan(s.mhz)) {
    s.mhz_source = "cpufreq scaling_cur_freq";
  } else if (mhz_count > 0) {
    s.mhz = mhz_sum / mhz_count;
    s.mhz_source = "/proc/cpuinfo cpu MHz";
  } else {
    s.mhz_source = "unreadable";
  }
  return s;
}

[[nodiscard]] inline boost::json::object to_json(const MachineState& s) {
  const auto number = [](double v) -> boost::json::value {
    return std::isnan(v) ? boost::json::value(nullptr) : boost::json::value(v);
  };
  return {{"time", s.time},           {"load1", number(s.load1)},
          {"load5", number(s.load5)}, {"load15", number(s.load15)},
          {"cpu_model", s.cpu_model}, {"cpus", s.cpus},
          {"mhz", number(s.mhz)},     {"mhz_source", s.mhz_source}};
}

}  // namespace aoe_bench

#endif  // AOE_BENCH_SUPPORT_MACHINE_STATE_HPP
