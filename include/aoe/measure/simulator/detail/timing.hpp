// Private: the timing model. Per core the pipeline MTE2 (GM->L1/UB) -> MTE1 (L1->L0A/L0B) ->
// Cube/Vector -> FixPipe/MTE3 (->GM); stages overlap when double-buffered and serialise when
// not; blocks run in waves over the cores; GM bandwidth is shared by the active cores under a
// chip cap; re-read data hits L2 when the working set fits. No allocation: called millions of
// times by the oracle. Model and sources: docs/simulator.md, ascend-aoe-facts.md §3.8.
#ifndef AOE_MEASURE_SIMULATOR_DETAIL_TIMING_HPP
#define AOE_MEASURE_SIMULATOR_DETAIL_TIMING_HPP

#include "aoe/measure/simulator/detail/model.hpp"
#include "aoe/measure/simulator/soc.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace aoe::sim::detail {

/// The pipes of an AI Core as the timing model sees them. `mte3` is the output stage: FixPipe
/// (L0C -> GM) on split SoCs (Atlas A2), L0C -> UB -> MTE3 on coupled ones, MTE3 (UB -> GM) for
/// vector operators.
enum Pipe : std::uint8_t { mte2, mte1, cube, vector, mte3, pipe_count };

inline constexpr std::array<const char*, pipe_count> pipe_names{"MTE2", "MTE1", "Cube", "Vector",
                                                                "FixPipe/MTE3"};

/// What limits a configuration's time (reports): the launch and fixed overheads (latency), the
/// data movement (memory: an MTE pipe busier than the compute pipes, or the chip's GM
/// bandwidth), or the Cube/Vector pipe (compute).
enum class Bound : std::uint8_t { compute, memory, latency };

inline constexpr std::array<const char*, 3> bound_names{"compute", "memory", "latency"};

/// One pipe's activity within one block (seconds from the block's start): it works `busy`
/// seconds between `start` and `end`, as the pipeline schedules it.
struct PipeSpan {
  double start = 0;
  double end = 0;
  double busy = 0;
};

/// Where a configuration's time goes, for profiles and op_summary (never for the search): filled
/// by cube_time / vector_time only when asked, from the same variables as the time. The time is
/// `launch + waves * wave + transdata` (`wave` >= `block` when the chip's GM bandwidth caps it).
struct Profile {
  Family family = Family::cube;
  std::int64_t blocks = 0;  ///< blocks launched (msprof's Block Dim)
  std::int64_t cores = 0;   ///< cores busy at once
  std::int64_t waves = 0;   ///< rounds of blocks over the cores
  double launch = 0;        ///< kernel launch overhead, seconds
  double block = 0;         ///< one block on one core, pipelined, with its fixed overhead
  double wave = 0;          ///< one wave on the timeline: block, or the chip GM cap's share
  double block_overhead = 0;
  double transdata = 0;  ///< format conversions (TransData) the configuration adds
  double seconds = 0;    ///< the total, as Outcome::seconds
  std::array<PipeSpan, pipe_count> pipes{};
  Bound bound = Bound::compute;
};

/// The sink of the search's instantiations: no profile, and no argument passed.
struct NoProfile {};

namespace timing {

/// Two stages over `n` items (stage times a, b), double-buffered or not, as the model times them:
/// stage A spans [0, (n-1) p + a], stage B [a, (n-1) p + a + b], p = max(a, b) or a + b.
inline void two_stage(double n, double a, double b, bool overlapped, PipeSpan& first,
                      PipeSpan& second) noexcept {
  const double period = overlapped ? std::max(a, b) : a + b;
  first.start = 0;
  first.end = (n - 1) * period + a;
  second.start = a;
  second.end = (n - 1) * period + a + b;
}

inline Bound classify(const Profile& p) noexcept {
  const double fixed = p.launch + p.transdata + p.block_overhead * static_cast<double>(p.waves);
  if (fixed >= 0.5 * p.seconds) return Bound::latency;
  const double moves =
      std::max({p.pipes[Pipe::mte2].busy, p.pipes[Pipe::mte1].busy, p.pipes[Pipe::mte3].busy});
  const double compute = std::max(p.pipes[Pipe::cube].busy, p.pipes[Pipe::vector].busy);
  if (p.wave > p.block * (1 + 1e-9) || moves > compute) return Bound::memory;
  return Bound::compute;
}

}  // namespace timing

[[nodiscard]] inline Outcome overflow(Buffer b, std::int64_t need, std::int64_t cap) noexcept {
  Outcome o;
  o.buffer = b;
  o.need = need;
  o.capacity = cap;
  return o;
}

/// MatMul / BatchMatMul / Conv2D (img2col GEMM) on the cube. With a `Profile*` sink, also fills
/// `*profile` with where the time goes (its own instantiation: the search's is unchanged).
template <class Sink = NoProfile>
[[nodiscard]] inline Outcome cube_time(const Soc& s, const Model& md, const Values& v,
                                       [[maybe_unused]] Sink profile = {}) noexcept {
  const std::int64_t in = md.in_bytes;
  const std::int64_t bml0 = v[m_l0], bnl0 = v[n_l0], bkl0 = v[k_l0];
  const std::int64_t tm = bml0 * v[m_step], tn = bnl0 * v[n_step], tk = bkl0 * v[k_step];
  const std::int64_t l0_copies = v[db_l0] ? 2 : 1;
  // (1) buffers; a double-buffered buffer counts twice.
  if (const auto need = bml0 * bkl0 * in * l0_copies; need > s.l0a_bytes) {
    return overflow(Buffer::l0a, need, s.l0a_bytes);
  }
  if (const auto need = bkl0 * bnl0 * in * l0_copies; need > s.l0b_bytes) {
    return overflow(Buffer::l0b, need, s.l0b_bytes);
  }
  if (const auto need = tm * tn * 4 * (v[db_l0c] ? 2 : 1); need > s.l0c_bytes) {
    return overflow(Buffer::l0c, need, s.l0c_bytes);
  }
  const auto a_l1 =
      static_cast<std::int64_t>(std::ceil(static_cast<double>(tm * tk) * md.a_gm_factor));
  if (const auto need = (a_l1 + tk * tn) * in * (v[db_l1] ? 2 : 1) + (md.bias ? tn * 4 : 0);
      need > s.l1_bytes) {
    return overflow(Buffer::l1, need, s.l1_bytes);
  }
  const bool nd_kernel = v[format] == 0;
  if (nd_kernel && !s.mte2_nd2nz) return overflow(Buffer::format, 0, 0);

  // (2) blocks over cores.
  const double f = s.frequency_ghz * 1e9;
  const std::int64_t m_frac = ceil_div(md.m, 16), n_frac = ceil_div(md.n, 16);
  const std::int64_t per_m = ceil_div(m_frac, v[block_m]), per_n = ceil_div(n_frac, v[block_n]);
  const std::int64_t used_m = ceil_div(m_frac, per_m), used_n = ceil_div(n_frac, per_n);
  const std::int64_t mc = per_m * 16, nc = per_n * 16, kp = round_up(md.k, md.k0);
  const std::int64_t blocks = md.batch * used_m * used_n;
  const std::int64_t active = std::min<std::int64_t>(blocks, s.cube_cores);
  const std::int64_t waves = ceil_div(blocks, s.cube_cores);

  // (3) per block: L1 tiles and GM->L1 traffic.
  const std::int64_t nm = ceil_div(mc, tm), nn = ceil_div(nc, tn), nk = ceil_div(kp, tk);
  const double a_panel = static_cast<double>(mc * kp * in) * md.a_gm_factor;
  const double b_panel = static_cast<double>(kp * nc * in);
  double reads_a = a_panel * static_cast<double>(nn);
  double reads_b = b_panel * static_cast<double>(nm);
  if (nk == 1) {
    if (v[order] == 0) {
      reads_a = a_panel;  // M outer: the A tile (tm x K) stays in L1 across the N tiles
    } else {
      reads_b = b_panel;
    }
  }
  const double reads = reads_a + reads_b;
  // L2: data shared by concurrently running blocks is fetched from GM once; a block's own
  // re-reads hit L2 when the working set of all active blocks fits.
  const double unique =
      static_cast<double>(md.batch) * static_cast<double>(md.m * md.k * in) * md.a_gm_factor +
      static_cast<double>((md.b_shared ? 1 : md.batch) * md.k * md.n * in);
  const double working = std::min(unique, static_cast<double>(active) * (a_panel + b_panel));
  const double share_a = static_cast<double>(std::min(used_n, active));
  const double share_b =
      static_cast<double>(std::min(used_m * (md.b_shared ? md.batch : 1), active));
  double chip_reads = 0;
  if (working <= s.l2_usable_fraction * static_cast<double>(s.l2_bytes)) {
    chip_reads = unique;
  } else {
    chip_reads = static_cast<double>(blocks) * (reads_a / share_a + reads_b / share_b);
  }
  chip_reads = std::max(unique, std::min(chip_reads, reads * static_cast<double>(blocks)));
  const double gm_fraction = chip_reads / (reads * static_cast<double>(blocks));
  const double gm_core = std::min(s.gm_read * f, s.gm_bandwidth / static_cast<double>(active)) *
                         (nd_kernel ? s.nd2nz_efficiency : 1.0);
  const double mte2 =
      reads * (gm_fraction / gm_core + (1 - gm_fraction) / (s.l2_read * f));  // seconds

  // MTE1: L1 -> L0A/L0B, keeping whichever operand is cheaper to reload resident.
  const double steps = static_cast<double>(nm * nn * nk);
  const double fill =
      static_cast<double>(mc * nc * kp) / (static_cast<double>(tm * tn * tk) * steps);
  const double a_cost = static_cast<double>(tm * tk * in) / s.l1_to_l0a;
  const double b_cost = static_cast<double>(tk * tn * in) / s.l1_to_l0b;
  const double mte1_step = std::min(a_cost * static_cast<double>(v[n_step]) + b_cost,
                                    a_cost + b_cost * static_cast<double>(v[m_step])) *
                           fill / f;

  // Cube: one 16 x k0 x 16 fractal per cycle per `cube_fractals_per_cycle`, plus issue overhead.
  const double fractals = static_cast<double>((mc / 16) * (kp / md.k0) * (nc / 16));
  const double mmads =
      static_cast<double>(ceil_div(mc, bml0) * ceil_div(nc, bnl0) * ceil_div(kp, bkl0));
  const double cube = (fractals / s.cube_fractals_per_cycle + mmads * s.mmad_overhead_cycles) / f;

  // Output: FixPipe to GM (A2) or L0C -> UB -> MTE3 (coupled parts), with the epilogue.
  const double out_elems = static_cast<double>(mc * nc);
  const double write_rate = std::min(s.gm_write * f, s.gm_bandwidth / static_cast<double>(active));
  double out = 0;
  const double vec_pass = out_elems * 2 / s.vector_bytes_per_cycle / f;
  const double residual =
      md.extra_input_bytes / static_cast<double>(md.batch * md.m * md.n) * out_elems;
  if (s.split) {
    out = out_elems * static_cast<double>(md.out_bytes) / std::min(s.fixpipe * f, write_rate);
    const double vector_passes = md.epilogue_passes - md.epilogue_fixpipe_passes;
    if (vector_passes > 0 || residual > 0) {
      // AIC -> AIV goes through GM/L2; two vector cores per cube core.
      const double bytes = out_elems * static_cast<double>(md.out_bytes);
      out += bytes / (s.l2_write * f) + bytes / (s.l2_read * f) + residual / (s.gm_read * f) +
             vector_passes * vec_pass / 2;
    }
  } else {
    out = out_elems * 4 / (s.l0c_to_ub * f) +
          out_elems * static_cast<double>(md.out_bytes) / std::min(s.ub_to_gm * f, write_rate) +
          md.epilogue_passes * vec_pass + residual / gm_core;
  }

  // (4) pipeline: per L1 step, L0 stages overlap when L0 is double-buffered, MTE2 overlaps
  // them when L1 is; FixPipe overlaps the next tile when L0C is. Fill and drain are exposed.
  // A two-stage pipeline of n items with stage times a, b: a + b + (n - 1) max(a, b) when
  // double-buffered (fill, steady state, drain), n (a + b) when not.
  const double t2 = mte2 / steps, t1 = mte1_step, tc = cube / steps;
  const double bases = static_cast<double>(v[m_step] * v[n_step] * v[k_step]);
  const double inner =
      v[db_l0] ? (t1 + tc) / bases + (bases - 1) / bases * std::max(t1, tc) : t1 + tc;
  const double stream =
      v[db_l1] ? t2 + inner + (steps - 1) * std::max(t2, inner) : steps * (t2 + inner);
  const double n_out = static_cast<double>(nm * nn);
  const double tile = stream / n_out;
  const double t_out = out / n_out;
  double block = v[db_l0c] ? tile + t_out + (n_out - 1) * std::max(tile, t_out) : stream + out;
  block += s.block_overhead_cycles / f;

  const double total_out = static_cast<double>(md.batch * md.m * md.n * md.out_bytes);
  const double cap = (chip_reads + total_out + md.extra_input_bytes) / s.gm_bandwidth;
  Outcome o;
  o.seconds = s.launch_overhead_seconds + std::max(static_cast<double>(waves) * block, cap);
  if (v[format] == 1 && md.tensors_nd) o.seconds += md.format_transdata_seconds;
  if constexpr (std::is_same_v<Sink, Profile*>) {
    Profile& p = *profile;
    p = Profile{
        .family = Family::cube,
        .blocks = blocks,
        .cores = active,
        .waves = waves,
        .launch = s.launch_overhead_seconds,
        .block = block,
        .wave = std::max(static_cast<double>(waves) * block, cap) / static_cast<double>(waves),
        .block_overhead = s.block_overhead_cycles / f,
        .transdata = v[format] == 1 && md.tensors_nd ? md.format_transdata_seconds : 0.0,
        .seconds = o.seconds};
    // The stream (MTE2 -> MTE1/Cube per L1 step), then the output stage per output tile.
    timing::two_stage(steps, t2, inner, v[db_l1] != 0, p.pipes[Pipe::mte2], p.pipes[Pipe::cube]);
    p.pipes[Pipe::mte1] = p.pipes[Pipe::cube];
    const double sub = v[db_l0] ? 1 / bases : 1.0;
    p.pipes[Pipe::mte1].end -= tc * sub;
    p.pipes[Pipe::cube].start += t1 * sub;
    PipeSpan out_span;
    if (v[db_l0c]) {
      PipeSpan stream_span;
      timing::two_stage(n_out, tile, t_out, true, stream_span, out_span);
      const double stretch = stream > 0 ? stream_span.end / stream : 1.0;
      for (const Pipe q : {Pipe::mte2, Pipe::mte1, Pipe::cube}) {
        p.pipes[q].start *= stretch;
        p.pipes[q].end *= stretch;
      }
    } else {
      out_span = {stream, stream + out, 0};
    }
    p.pipes[Pipe::mte2].busy = mte2;
    p.pipes[Pipe::mte1].busy = t1 * steps;
    p.pipes[Pipe::cube].busy = cube;
    const double epilogue =
        s.split ? ((md.epilogue_passes - md.epilogue_fixpipe_passes > 0 || residual > 0)
                       ? (md.epilogue_passes - md.epilogue_fixpipe_passes) * vec_pass / 2
                       : 0.0)
                : md.epilogue_passes * vec_pass;
    p.pipes[Pipe::mte3] = out_span;
    p.pipes[Pipe::mte3].busy = out - std::max(0.0, epilogue);
    if (epilogue > 0) {
      p.pipes[Pipe::vector] = out_span;
      p.pipes[Pipe::vector].busy = epilogue;
    }
    p.bound = timing::classify(p);
  }
  return o;
}

/// Vector operators (elementwise chains, reductions, SoftmaxV2, LayerNorm, pools, depthwise,
/// TransData): MTE2 -> Vector -> MTE3 over UB tiles. `Sink` as for cube_time.
template <class Sink = NoProfile>
[[nodiscard]] inline Outcome vector_time(const Soc& s, const Model& md, const Values& v,
                                         [[maybe_unused]] Sink profile = {}) noexcept {
  const bool precise = md.precision_variant && v[impl] == 1;
  const double compute_bytes = precise ? 4.0 : 2.0;
  const double tile_elems = static_cast<double>(v[ub_tile]);
  const double ub_per = md.ub_per_elem + (precise ? 4.0 : 0.0);
  const std::int64_t copies = v[db_ub] ? 2 : 1;
  if (const auto need = static_cast<std::int64_t>(std::ceil(tile_elems * ub_per)) * copies;
      need > s.ub_bytes) {
    return overflow(Buffer::ub, need, s.ub_bytes);
  }
  const double f = s.vector_op_frequency_ghz() * 1e9;
  // Work units split over cores: rows for row ops, 32-byte blocks for the rest.
  const std::int64_t unit = md.row > 0 ? md.row : 16;
  const std::int64_t units = md.row > 0 ? md.rows : ceil_div(md.elements, 16);
  const std::int64_t cores = std::max<std::int64_t>(1, std::min<std::int64_t>(v[block_dim], units));
  const double per_core = static_cast<double>(ceil_div(units, cores) * unit);
  // A row longer than the tile is processed in pieces and re-read (two passes over GM).
  double reread = 1;
  double tile = tile_elems;
  if (md.row > 0) {
    if (md.row > v[ub_tile]) {
      reread = md.reduce_op ? 1.0 : 2.0;
    } else {
      tile = static_cast<double>((v[ub_tile] / md.row) * md.row);
    }
  }
  tile = std::min(tile, per_core);
  const double tiles = std::ceil(per_core / tile);
  // Lane efficiency: a row op on a short row wastes lanes of the 128-lane repeat (ND) or pads to
  // 16-column fractals (NZ), with one extra pass to reduce across fractals.
  double lanes = 1;
  double extra_passes = 0;
  if (md.row_lanes) {
    const auto r = md.row;
    if (md.softmax_formats && v[format] == 1) {
      lanes = static_cast<double>(r) / static_cast<double>(round_up(r, 16));
      extra_passes = 1;
    } else {
      const std::int64_t per_repeat =
          static_cast<std::int64_t>(s.vector_bytes_per_cycle / compute_bytes);
      lanes = r >= per_repeat
                  ? static_cast<double>(r) / static_cast<double>(round_up(r, per_repeat))
                  : static_cast<double>(r) / static_cast<double>(per_repeat);
      lanes = std::max(lanes, 0.25);  // several short rows share a repeat through masks
    }
  }
  const double passes = (md.passes + extra_passes) * (compute_bytes / 2) + (precise ? 2.0 : 0.0);
  const double repeats = std::ceil(tile * compute_bytes / s.vector_bytes_per_cycle / lanes);
  const double instructions = std::ceil(passes) * std::ceil(repeats / 255);
  const double t_vec = (repeats * passes + instructions * s.vector_instruction_overhead_cycles) / f;
  const double share = s.gm_bandwidth / static_cast<double>(cores);
  const double t_in = tile * md.in_per_elem * reread / std::min(s.gm_read * f, share);
  const double t_out =
      tile * md.out_per_elem / std::min(std::min(s.ub_to_gm, s.gm_write) * f, share);
  double core = v[db_ub] ? t_in + t_vec + t_out + (tiles - 1) * std::max({t_in, t_vec, t_out})
                         : tiles * (t_in + t_vec + t_out);
  core += s.block_overhead_cycles / f;
  const double cap = md.chip_bytes * (reread > 1 ? 1.5 : 1.0) / s.gm_bandwidth;
  Outcome o;
  o.seconds = s.launch_overhead_seconds + std::max(core, cap);
  if (md.softmax_formats && (v[format] == 1) != md.tensor_nz) {
    o.seconds += 2 * md.format_transdata_seconds;  // TransData in front and behind
  }
  if constexpr (std::is_same_v<Sink, Profile*>) {
    Profile& p = *profile;
    p = Profile{.family = Family::vector,
                .blocks = cores,
                .cores = cores,
                .waves = 1,
                .launch = s.launch_overhead_seconds,
                .block = core,
                .wave = std::max(core, cap),
                .block_overhead = s.block_overhead_cycles / f,
                .transdata = md.softmax_formats && (v[format] == 1) != md.tensor_nz
                                 ? 2 * md.format_transdata_seconds
                                 : 0,
                .seconds = o.seconds};
    const double period = v[db_ub] ? std::max({t_in, t_vec, t_out}) : t_in + t_vec + t_out;
    p.pipes[Pipe::mte2] = {0, (tiles - 1) * period + t_in, tiles * t_in};
    p.pipes[Pipe::vector] = {t_in, (tiles - 1) * period + t_in + t_vec, tiles * t_vec};
    p.pipes[Pipe::mte3] = {t_in + t_vec, (tiles - 1) * period + t_in + t_vec + t_out,
                           tiles * t_out};
    p.bound = timing::classify(p);
  }
  return o;
}

/// The time of a configuration.
[[nodiscard]] inline Outcome time(const Soc& s, const Model& md, const Values& v) noexcept {
  return md.family == Family::cube ? cube_time(s, md, v) : vector_time(s, md, v);
}

/// The time of a configuration, and where it goes in `out` (for reports).
[[nodiscard]] inline Outcome profile(const Soc& s, const Model& md, const Values& v,
                                     Profile& out) noexcept {
  return md.family == Family::cube ? cube_time<Profile*>(s, md, v, &out)
                                   : vector_time<Profile*>(s, md, v, &out);
}

}  // namespace aoe::sim::detail

#endif  // AOE_MEASURE_SIMULATOR_DETAIL_TIMING_HPP
