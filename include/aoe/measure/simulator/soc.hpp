// An Ascend SoC as data: core counts, clocks, buffer sizes, cube shapes, per-path rates and the
// calibratable constants of the simulator's timing model.
#ifndef AOE_MEASURE_SIMULATOR_SOC_HPP
#define AOE_MEASURE_SIMULATOR_SOC_HPP

#include "aoe/core/assert.hpp"
#include "aoe/core/error.hpp"
#include "aoe/io/parse_json.hpp"
#include "aoe/io/read_input.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <array>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace aoe::sim {

/// One SoC. Sources (tags and public sources as in docs/simulator.md#sources):
/// core counts, clocks and buffer sizes from CANN's platform_config/<SoC>.ini; per-path rates
/// from its [AICoreMemoryRates] (bytes per cycle, taken per core); the cube shapes from
/// [DtypeMKN]. The chip GM cap, the launch overhead and the per-instruction overheads are not
/// published: they are calibration constants (`from_json_file` loads a calibrated copy).
struct Soc {
  std::string name;
  int cube_cores = 32;         ///< AI Cores (cube cores on A2)
  int vector_cores = 0;        ///< separate vector cores (AIV); 0 on coupled parts (910A)
  bool split = false;          ///< A2: cube and vector in separate cores, talking through GM/L2
  double frequency_ghz = 1.0;  ///< AI Core clock
  double vector_frequency_ghz = 1.0;  ///< vector core clock (the AI Core clock when coupled)

  std::int64_t l0a_bytes = 64 * 1024;
  std::int64_t l0b_bytes = 64 * 1024;
  std::int64_t l0c_bytes = 256 * 1024;
  std::int64_t l1_bytes = 1024 * 1024;
  std::int64_t ub_bytes = 256 * 1024;
  std::int64_t l2_bytes = 32LL * 1024 * 1024;

  int cube_m = 16;        ///< fractal rows (M0)
  int cube_n = 16;        ///< fractal columns (N0)
  int cube_k_bytes = 32;  ///< fractal depth in bytes: K0 = 16 for fp16/bf16, 32 for int8
  /// 16x16x16 fp16 fractals the cube completes per cycle (1 on DaVinci Max: 4096 MACs/cycle).
  double cube_fractals_per_cycle = 1.0;
  double mmad_overhead_cycles = 32;  ///< issue/drain of one mmad instruction [calibrate]

  double vector_bytes_per_cycle = 256;             ///< one repeat: 8 blocks of 32 B
  double vector_instruction_overhead_cycles = 12;  ///< per vector instruction [calibrate]

  // Per-path rates in bytes per cycle per core ([AICoreMemoryRates]).
  double gm_read = 32;   ///< ddr read (MTE2 from GM)
  double gm_write = 32;  ///< ddr write
  double l2_read = 110;  ///< MTE2 reads served by L2
  double l2_write = 86;
  double l1_to_l0a = 512;
  double l1_to_l0b = 256;
  double l0c_to_ub = 256;  ///< coupled parts: the cube's output goes through UB
  double ub_to_gm = 64;    ///< MTE3
  double fixpipe = 128;    ///< A2 FixPipe L0C -> GM (not in the ini) [calibrate]

  double gm_bandwidth = 1.2e12;           ///< chip-level HBM/DDR cap, bytes per second [calibrate]
  double l2_usable_fraction = 0.75;       ///< share of L2 a kernel's re-read working set can use
  double launch_overhead_seconds = 5e-6;  ///< per kernel launch [calibrate]
  double block_overhead_cycles = 2000;    ///< per block: scalar setup, sync, tiling reads

  bool mte2_nd2nz = false;        ///< MTE2 converts ND to NZ while copying (A2)
  bool fixpipe_nz2nd = false;     ///< FixPipe writes ND directly (A2)
  double nd2nz_efficiency = 0.9;  ///< MTE2 rate factor while converting ND to NZ [calibrate]
  /// Share of the GM bandwidth a TransData (format conversion) pass reaches [calibrate].
  double transdata_efficiency = 0.6;

  // The energy model (docs/simulator.md#the-energy-model): picojoules per multiply-accumulate,
  // per vector repeat and per byte moved at each level, and the static power. The MACs keep the
  // int8 : fp16 : fp32 ratios of Horowitz's 45 nm figures (ISSCC 2014); SRAM bytes are his
  // figures scaled to 7 nm [I]; HBM2 is O'Connor et al.'s 3.9 pJ/bit (MICRO 2017). The fp16 MAC
  // and the static power are calibrated so that a busy 910A draws its published 310 W [C].
  double mac_pj_int8 = 0.26;       ///< one int8 MAC on the cube, with its L0 operand reads
  double mac_pj_fp16 = 1.3;        ///< one fp16/bf16 MAC
  double mac_pj_fp32 = 4.0;        ///< one fp32 MAC
  double vector_repeat_pj = 60;    ///< one 256-byte repeat of a vector instruction
  double gm_pj_per_byte = 31;      ///< HBM/DDR, per byte read or written
  double l2_pj_per_byte = 6;       ///< L2, per byte read or written
  double local_pj_per_byte = 1.5;  ///< L1, L0A/L0B/L0C and UB, per byte moved in or out
  double static_watts = 130;       ///< leakage, clocks and memory refresh, while the kernel runs

  /// Cube peak in FLOP/s for 2-byte inputs (fp16/bf16).
  [[nodiscard]] double peak_flops_fp16() const noexcept {
    return cube_cores * cube_fractals_per_cycle * cube_m * cube_n * 16.0 * 2.0 * frequency_ghz *
           1e9;
  }
  /// Cores that run vector operators: the vector cores when split, the AI Cores otherwise.
  [[nodiscard]] int vector_op_cores() const noexcept {
    return split && vector_cores > 0 ? vector_cores : cube_cores;
  }
  [[nodiscard]] double vector_op_frequency_ghz() const noexcept {
    return split && vector_cores > 0 ? vector_frequency_ghz : frequency_ghz;
  }
  /// The GM bandwidth a kernel on `cores` cores can draw (per-core paths, then the chip cap).
  [[nodiscard]] double effective_gm_bandwidth(int cores, double ghz) const noexcept {
    const double per_core = cores * gm_read * ghz * 1e9;
    return per_core < gm_bandwidth ? per_core : gm_bandwidth;
  }

  /// This SoC with `n` of its AI Cores (1 <= n <= cube_cores; a caller's bug otherwise), as
  /// AOE's `--aicore_num` compiles for fewer cores: the timing model spreads blocks over `n`
  /// cores and the spaces offer block counts up to `n`. On split parts (A2) the vector cores
  /// keep their ratio to the cube cores (two per AI Core); the chip-level caps (gm_bandwidth,
  /// L2) stay, since the memory does not shrink with the cores in use.
  [[nodiscard]] Soc with_ai_cores(int n) const {
    AOE_ASSERT(n >= 1 && n <= cube_cores, "with_ai_cores: n must be in [1, cube_cores]");
    Soc s = *this;
    if (s.split && s.vector_cores > 0) s.vector_cores = s.vector_cores * n / s.cube_cores;
    s.cube_cores = n;
    return s;
  }

  /// The names `builtin` knows.
  [[nodiscard]] static std::vector<std::string> builtin_names() {
    return {"Ascend910A",  "Ascend910B1", "Ascend910B2",
            "Ascend910B3", "Ascend910B4", "Ascend310P3"};
  }

  /// A built-in SoC, or `Errc::not_found` with the valid names.
  [[nodiscard]] static Result<Soc> builtin(std::string_view name) {
    Soc s;
    s.name = std::string(name);
    if (name == "Ascend910A") {
      // The defaults are the 910A (C-100, coupled). Its cube rate is calibrated to the
      // published 256 TFLOPS (Hot Chips 31) rather than the 262 of 32 x 4096 x 2 x 1 GHz.
      s.cube_fractals_per_cycle = 256.0 / 262.144;
      return s;
    }
    if (name.starts_with("Ascend910B") && name.size() == 11 && name[10] >= '1' && name[10] <= '4') {
      // Atlas A2 (C-220, split): 24/48 or 20/40 cores; 1850/1800/1800/1500 MHz.
      const int variant = name[10] - '0';
      s.split = true;
      s.cube_cores = variant <= 2 ? 24 : 20;
      s.vector_cores = 2 * s.cube_cores;
      constexpr std::array<double, 4> clocks{1.85, 1.8, 1.8, 1.5};
      s.frequency_ghz = clocks[static_cast<std::size_t>(variant - 1)];
      s.vector_frequency_ghz = s.frequency_ghz;
      s.l0c_bytes = 128 * 1024;
      s.l1_bytes = 512 * 1024;
      s.ub_bytes = 192 * 1024;
      s.l2_bytes = variant == 4 ? 96LL * 1024 * 1024 : 192LL * 1024 * 1024;
      s.gm_bandwidth = variant == 4 ? 0.8e12 : 1.6e12;  // [U] quoted HBM figures
      s.launch_overhead_seconds = 3e-6;
      s.mte2_nd2nz = true;
      s.fixpipe_nz2nd = true;
      s.static_watts = variant <= 2 ? 110 : 95;  // [C] no published figure
      return s;
    }
    if (name == "Ascend310P3") {
      // Atlas 300I Pro (M-200, coupled): 8 AI Cores at 1060 MHz, LPDDR4X.
      s.cube_cores = 8;
      s.vector_cores = 7;
      s.frequency_ghz = 1.06;
      s.vector_frequency_ghz = 1.0;
      s.l2_bytes = 16LL * 1024 * 1024;
      s.gm_read = 17;
      s.gm_write = 17;
      s.l2_read = 114;
      s.l2_write = 114;
      s.l0c_to_ub = 512;
      s.ub_to_gm = 17;
      s.gm_bandwidth = 204e9;  // [U] LPDDR4X per chip
      // [U] LPDDR4X at about 4 pJ/bit; a 72 W card (Atlas 300I Pro) idles near a fifth of it.
      s.gm_pj_per_byte = 32;
      s.static_watts = 15;
      return s;
    }
    std::string valid;
    for (const auto& n : builtin_names()) valid += (valid.empty() ? "" : ", ") + n;
    return make_error(Errc::not_found,
                      "unknown SoC '" + std::string(name) + "'; expected one of " + valid);
  }

  /// A SoC from a JSON object: optional "base" (a built-in name, default Ascend910A) and any
  /// field of this struct by its name, overriding the base. Errors name the file and the JSON
  /// pointer of the offending field.
  [[nodiscard]] static Result<Soc> from_json_file(const std::string& path) {
    auto text = aoe::detail::read_input_file(path, "a SoC description, docs/simulator.md");
    if (!text) return make_error(Errc::io_error, text.error().message);  // io_error, as before
    auto parsed = aoe::detail::parse_json(*text, path);
    if (!parsed) return parsed.error();
    const boost::json::value& doc = *parsed;
    if (!doc.is_object()) {
      return make_error(Errc::schema_error, path + ": expected a JSON object at ''");
    }
    const auto& obj = doc.as_object();
    std::string base = "Ascend910A";
    if (const auto* b = obj.if_contains("base")) {
      if (!b->is_string()) {
        return make_error(Errc::schema_error, path + ": /base: expected a SoC name (string)");
      }
      base = std::string(b->as_string());
    }
    auto r = builtin(base);
    if (!r) return make_error(Errc::schema_error, path + ": /base: " + r.error().message);
    Soc s = *r;
    for (const auto& [key, value] : obj) {
      const std::string pointer = "/" + std::string(key);
      const auto fail = [&](const char* expected) {
        return make_error(Errc::schema_error, path + ": " + pointer + ": expected " + expected);
      };
      if (key == "base") continue;
      if (key == "name") {
        if (!value.is_string()) return fail("a string");
        s.name = std::string(value.as_string());
        continue;
      }
      bool found = false;
      bool ok = true;
      s.visit_fields([&](std::string_view field, auto& member) {
        if (field != key) return;
        found = true;
        using T = std::remove_reference_t<decltype(member)>;
        if constexpr (std::is_same_v<T, bool>) {
          if (value.is_bool())
            member = value.as_bool();
          else
            ok = false;
        } else if constexpr (std::is_integral_v<T>) {
          if (value.is_int64() && value.as_int64() >= 0) {
            member = static_cast<T>(value.as_int64());
          } else if (value.is_uint64()) {
            member = static_cast<T>(value.as_uint64());
          } else {
            ok = false;
          }
        } else {
          if (value.is_number() && value.to_number<double>() >= 0) {
            member = value.to_number<double>();
          } else {
            ok = false;
          }
        }
      });
      if (!found) return fail("a field of aoe::sim::Soc (see docs/simulator.md)");
      if (!ok)
        return fail(
            "a non-negative number (an integer for sizes and counts, true/false for flags)");
    }
    if (s.cube_cores <= 0 || s.frequency_ghz <= 0 || s.gm_bandwidth <= 0 || s.gm_read <= 0) {
      return make_error(Errc::schema_error,
                        path +
                            ": cube_cores, frequency_ghz, gm_read and gm_bandwidth must be "
                            "positive");
    }
    return s;
  }

  /// Calls f(name, member) for every calibratable field (used by the JSON loader).
  template <class F>
  void visit_fields(F&& f) {
    f("cube_cores", cube_cores);
    f("vector_cores", vector_cores);
    f("split", split);
    f("frequency_ghz", frequency_ghz);
    f("vector_frequency_ghz", vector_frequency_ghz);
    f("l0a_bytes", l0a_bytes);
    f("l0b_bytes", l0b_bytes);
    f("l0c_bytes", l0c_bytes);
    f("l1_bytes", l1_bytes);
    f("ub_bytes", ub_bytes);
    f("l2_bytes", l2_bytes);
    f("cube_m", cube_m);
    f("cube_n", cube_n);
    f("cube_k_bytes", cube_k_bytes);
    f("cube_fractals_per_cycle", cube_fractals_per_cycle);
    f("mmad_overhead_cycles", mmad_overhead_cycles);
    f("vector_bytes_per_cycle", vector_bytes_per_cycle);
    f("vector_instruction_overhead_cycles", vector_instruction_overhead_cycles);
    f("gm_read", gm_read);
    f("gm_write", gm_write);
    f("l2_read", l2_read);
    f("l2_write", l2_write);
    f("l1_to_l0a", l1_to_l0a);
    f("l1_to_l0b", l1_to_l0b);
    f("l0c_to_ub", l0c_to_ub);
    f("ub_to_gm", ub_to_gm);
    f("fixpipe", fixpipe);
    f("gm_bandwidth", gm_bandwidth);
    f("l2_usable_fraction", l2_usable_fraction);
    f("launch_overhead_seconds", launch_overhead_seconds);
    f("block_overhead_cycles", block_overhead_cycles);
    f("mte2_nd2nz", mte2_nd2nz);
    f("fixpipe_nz2nd", fixpipe_nz2nd);
    f("nd2nz_efficiency", nd2nz_efficiency);
    f("transdata_efficiency", transdata_efficiency);
    f("mac_pj_int8", mac_pj_int8);
    f("mac_pj_fp16", mac_pj_fp16);
    f("mac_pj_fp32", mac_pj_fp32);
    f("vector_repeat_pj", vector_repeat_pj);
    f("gm_pj_per_byte", gm_pj_per_byte);
    f("l2_pj_per_byte", l2_pj_per_byte);
    f("local_pj_per_byte", local_pj_per_byte);
    f("static_watts", static_watts);
  }
};

}  // namespace aoe::sim

#endif  // AOE_MEASURE_SIMULATOR_SOC_HPP
