// Private: the tuning space of each operator family and the built-in heuristic (AOE's
// performance_before_tune baseline).
#ifndef AOE_MEASURE_SIMULATOR_DETAIL_SPACES_HPP
#define AOE_MEASURE_SIMULATOR_DETAIL_SPACES_HPP

#include "aoe/measure/simulator/detail/model.hpp"
#include "aoe/measure/simulator/detail/timing.hpp"
#include "aoe/measure/simulator/knowledge.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/space/constraint.hpp"
#include "aoe/space/parameter.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace aoe::sim::detail {

/// Core-split levels: the powers of two up to `cores` and the divisors of `cores` (24 = 3 x 8
/// on the 910B1 needs 3, 6, 12, 24).
[[nodiscard]] inline std::vector<std::int64_t> split_levels(std::int64_t cores,
                                                            std::int64_t at_most) {
  std::set<std::int64_t> s;
  for (std::int64_t p = 1; p <= cores; p *= 2) s.insert(p);
  for (std::int64_t d = 1; d <= cores; ++d) {
    if (cores % d == 0) s.insert(d);
  }
  std::vector<std::int64_t> out;
  for (const auto x : s) {
    if (x <= std::max<std::int64_t>(1, at_most)) out.push_back(x);
  }
  return out;
}

[[nodiscard]] inline Parameter int_levels(const char* name, const std::vector<std::int64_t>& v) {
  std::vector<Value> levels(v.begin(), v.end());
  return {name, ParameterKind::integer, std::move(levels)};
}

/// The space's dimensions (each with its role) and constraints, before knowledge filtering.
struct Layout {
  std::vector<Parameter> parameters;
  std::vector<Role> roles;
  std::vector<Constraint> constraints;

  void add(Role r, Parameter p) {
    parameters.push_back(std::move(p));
    roles.push_back(r);
  }
};

/// The cube's constraints: base blocks and steps within the per-core M, N and the padded K, the
/// core split within the cores, and the single-buffered L0 capacities.
inline void cube_constraints(const Soc& s, const Model& md, Layout& l) {
  const std::int64_t m_frac = ceil_div(md.m, 16), n_frac = ceil_div(md.n, 16);
  const std::int64_t kp = round_up(md.k, md.k0);
  const std::int64_t cores = s.cube_cores;
  const auto base_ok = [](std::int64_t frac) {
    return [frac](std::span<const double> x) {
      const double per = std::ceil(static_cast<double>(frac) / x[0]) * 16;
      return x[1] == 16 || x[1] / 2 < per;
    };
  };
  const auto step_ok = [](std::int64_t frac) {
    return [frac](std::span<const double> x) {
      const double per = std::ceil(static_cast<double>(frac) / x[0]) * 16;
      return x[1] * (x[2] - 1) < per;
    };
  };
  l.constraints.push_back(
      predicate({"block_m", "m_l0"}, base_ok(m_frac), "m_l0 is at most twice the per-core M"));
  l.constraints.push_back(predicate({"block_m", "m_l0", "m_step"}, step_ok(m_frac),
                                    "m_l0 * (m_step - 1) < per-core M"));
  l.constraints.push_back(product_at_most({"block_m", "block_n"}, static_cast<double>(cores)));
  l.constraints.push_back(
      predicate({"block_n", "n_l0"}, base_ok(n_frac), "n_l0 is at most twice the per-core N"));
  l.constraints.push_back(predicate({"block_n", "n_l0", "n_step"}, step_ok(n_frac),
                                    "n_l0 * (n_step - 1) < per-core N"));
  // Single-buffered capacities are analysable constraints (they prune the enumeration);
  // double-buffered overflows and L1 overflows are compile failures of the candidate.
  l.constraints.push_back(
      product_at_most({"m_l0", "m_step", "n_l0", "n_step"}, static_cast<double>(s.l0c_bytes / 4)));
  l.constraints.push_back(
      product_at_most({"m_l0", "k_l0"}, static_cast<double>(s.l0a_bytes / md.in_bytes)));
  l.constraints.push_back(
      product_at_most({"n_l0", "k_l0"}, static_cast<double>(s.l0b_bytes / md.in_bytes)));
  const double k0 = static_cast<double>(md.k0);
  const double kpd = static_cast<double>(kp);
  l.constraints.push_back(predicate(
      {"k_l0"}, [k0, kpd](std::span<const double> x) { return x[0] == k0 || x[0] / 2 < kpd; },
      "k_l0 is at most twice K"));
  l.constraints.push_back(predicate(
      {"k_l0", "k_step"}, [kpd](std::span<const double> x) { return x[0] * (x[1] - 1) < kpd; },
      "k_l0 * (k_step - 1) < K"));
}

/// The cube's dimensions: cores, base block and steps along M, N and K, the loop order, the
/// ping-pong buffers, and the format where it is a choice.
inline void cube_layout(const Soc& s, const Model& md, Layout& l) {
  const std::int64_t m_frac = ceil_div(md.m, 16), n_frac = ceil_div(md.n, 16);
  const std::int64_t cores = s.cube_cores;
  const std::vector<std::int64_t> bases{16, 32, 64, 128, 256};
  std::vector<std::int64_t> kbases;
  for (std::int64_t b = md.k0; b <= 256; b *= 2) kbases.push_back(b);
  l.add(block_m, int_levels("block_m", split_levels(cores, m_frac)));
  l.add(m_l0, int_levels("m_l0", bases));
  l.add(m_step, int_levels("m_step", {1, 2, 4}));
  l.add(block_n, int_levels("block_n", split_levels(cores, n_frac)));
  l.add(n_l0, int_levels("n_l0", bases));
  l.add(n_step, int_levels("n_step", {1, 2, 4}));
  l.add(k_l0, int_levels("k_l0", kbases));
  l.add(k_step, int_levels("k_step", {1, 2, 4, 8}));
  l.add(order, enumeration("order", {"m_outer", "n_outer"}));
  l.add(db_l1, flag("db_l1"));
  l.add(db_l0, flag("db_l0"));
  l.add(db_l0c, flag("db_l0c"));
  cube_constraints(s, md, l);
  if (md.cube_formats) l.add(format, enumeration("format", {"ND", "FRACTAL_NZ"}));
}

/// A vector operator's dimensions: cores, UB tile and double buffering, and SoftmaxV2's format;
/// a tile is at most twice a core's share of the elements.
inline void vector_layout(const Soc& s, const Model& md, Layout& l) {
  const std::int64_t unit = md.row > 0 ? md.row : 16;
  const std::int64_t units = md.row > 0 ? md.rows : ceil_div(md.elements, 16);
  l.add(block_dim, int_levels("block_dim", split_levels(s.vector_op_cores(), units)));
  std::vector<std::int64_t> tiles;
  const double per = std::max(1.0, md.ub_per_elem + (md.precision_variant ? 4.0 : 0.0));
  for (std::int64_t t = 256; static_cast<double>(t) * per <= 2.0 * static_cast<double>(s.ub_bytes);
       t *= 2) {
    tiles.push_back(t);
  }
  if (tiles.empty()) tiles.push_back(256);
  l.add(ub_tile, int_levels("ub_tile", tiles));
  l.add(db_ub, flag("double_buffer"));
  l.constraints.push_back(predicate(
      {"block_dim", "ub_tile"},
      [unit, units](std::span<const double> x) {
        const double per_core = std::ceil(static_cast<double>(units) / x[0]) * unit;
        return x[1] == 256 || x[1] / 2 < per_core;
      },
      "ub_tile is at most twice the per-core elements"));
  if (md.softmax_formats) l.add(format, enumeration("format", {"ND", "FRACTAL_NZ"}));
}

/// The space of `md`'s family on `s`, and impl_mode where the operator has a high_precision
/// implementation.
[[nodiscard]] inline Layout layout(const Soc& s, const Model& md) {
  Layout l;
  if (md.family == Family::cube) {
    cube_layout(s, md, l);
  } else {
    vector_layout(s, md, l);
  }
  if (md.precision_variant) {
    l.add(impl, enumeration("impl_mode", {"high_performance", "high_precision"}));
  }
  return l;
}

/// The built-in heuristic, a fixed rule like the tiling an operator gets before tuning: use
/// all cores (splitting M first), 128x128 base blocks, baseK 64 bytes-worth x as many K steps as
/// L1 holds, ping-pong L1 and L0, M outer; vector ops: all cores, the largest double-buffered
/// UB tile. Falls back to smaller tiles until the configuration fits.
[[nodiscard]] inline Values heuristic(const Soc& s, const Model& md) {
  Values v{};
  v[format] = md.family == Family::cube ? (md.cube_formats && md.tensors_nd && s.mte2_nd2nz ? 0 : 1)
                                        : (md.tensor_nz ? 1 : 0);
  v[impl] = 0;
  if (md.family == Family::cube) {
    const std::int64_t m_frac = ceil_div(md.m, 16), n_frac = ceil_div(md.n, 16);
    const std::int64_t kp = round_up(md.k, md.k0);
    const std::int64_t cores = s.cube_cores;
    const std::int64_t spare = std::max<std::int64_t>(1, cores / std::min(md.batch, cores));
    // The most cores, then the least per-core traffic (smallest per-core M + N).
    std::int64_t best_used = 0, best_edge = 0;
    v[block_m] = v[block_n] = 1;
    for (const auto bm : split_levels(cores, m_frac)) {
      for (const auto bn : split_levels(cores, n_frac)) {
        if (bm * bn > spare) continue;
        const std::int64_t used =
            ceil_div(m_frac, ceil_div(m_frac, bm)) * ceil_div(n_frac, ceil_div(n_frac, bn));
        const std::int64_t edge = ceil_div(m_frac, bm) + ceil_div(n_frac, bn);
        if (used > best_used || (used == best_used && edge < best_edge)) {
          best_used = used;
          best_edge = edge;
          v[block_m] = bm;
          v[block_n] = bn;
        }
      }
    }
    const auto pow2_at_least = [](std::int64_t x) {
      std::int64_t p = 16;
      while (p < x) p *= 2;
      return p;
    };
    const std::int64_t per_m = ceil_div(m_frac, v[block_m]) * 16;
    const std::int64_t per_n = ceil_div(n_frac, v[block_n]) * 16;
    v[m_step] = v[n_step] = 1;
    v[order] = 0;
    v[db_l1] = v[db_l0] = 1;
    v[db_l0c] = 0;
    for (std::int64_t base = 128; base >= 16; base /= 2) {
      v[m_l0] = std::min(base, pow2_at_least(per_m));
      v[n_l0] = std::min(base, pow2_at_least(per_n));
      for (std::int64_t kb = std::max<std::int64_t>(md.k0, 32 / md.in_bytes * 4); kb >= md.k0;
           kb /= 2) {
        v[k_l0] = kb;
        while (v[k_l0] > md.k0 && v[k_l0] / 2 >= kp) v[k_l0] /= 2;
        for (std::int64_t st = 8; st >= 1; st /= 2) {
          if (v[k_l0] * (st - 1) >= kp) continue;
          v[k_step] = st;
          if (time(s, md, v).buffer == Buffer::none) return v;
        }
      }
    }
    return v;
  }
  const std::int64_t units = md.row > 0 ? md.rows : ceil_div(md.elements, 16);
  const std::int64_t unit = md.row > 0 ? md.row : 16;
  const auto cores = split_levels(s.vector_op_cores(), units);
  v[block_dim] = cores.back();
  v[db_ub] = 1;
  const double per_core = static_cast<double>(ceil_div(units, v[block_dim]) * unit);
  const double per = std::max(1.0, md.ub_per_elem);
  v[ub_tile] = 256;
  for (std::int64_t t = 256; static_cast<double>(t) * per * 2 <= static_cast<double>(s.ub_bytes);
       t *= 2) {
    if (t == 256 || static_cast<double>(t) / 2 < per_core) v[ub_tile] = t;
  }
  return v;
}

}  // namespace aoe::sim::detail

#endif  // AOE_MEASURE_SIMULATOR_DETAIL_SPACES_HPP
