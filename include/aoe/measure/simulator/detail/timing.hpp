// Private: the timing model. Per core the pipeline MTE2 (GM->L1/UB) -> MTE1 (L1->L0A/L0B) ->
// Cube/Vector -> FixPipe/MTE3 (->GM); stages overlap when double-buffered and serialise when
// not; blocks run in waves over the cores; GM bandwidth is shared by the active cores under a
// chip cap; re-read data hits L2 when the working set fits. No allocation: called millions of
// times by the oracle. Model: docs/simulator.md#the-timing-model-detailtiminghpp; sources:
// docs/simulator.md#sources.
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

/// The sink of the runner's measurements: the configuration's energy, in joules.
struct Joules {
  double value = 0;
};

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

namespace timing {

/// The buffer a cube configuration overflows (a double-buffered buffer counts twice), or a
/// format the SoC cannot load; `Buffer::none` when it fits.
[[nodiscard]] inline Outcome cube_overflow(const Soc& s, const Model& md,
                                           const Values& v) noexcept {
  const std::int64_t in = md.in_bytes;
  const std::int64_t bml0 = v[m_l0], bnl0 = v[n_l0], bkl0 = v[k_l0];
  const std::int64_t tm = bml0 * v[m_step], tn = bnl0 * v[n_step], tk = bkl0 * v[k_step];
  const std::int64_t l0_copies = v[db_l0] ? 2 : 1;
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
  if (v[format] == 0 && !s.mte2_nd2nz) return overflow(Buffer::format, 0, 0);
  return {};
}

/// What cube_time derives from a configuration that fits, step by step; its profile reads the
/// same values.
struct CubeRun {
  double f = 0;  ///< the AI Core clock, Hz
  // Blocks over cores.
  std::int64_t mc = 0, nc = 0, kp = 0;  ///< a block's M and N (whole fractals), K padded to k0
  std::int64_t used_m = 0, used_n = 0;  ///< cores used along M and N
  std::int64_t blocks = 0, active = 0, waves = 0;
  std::int64_t nm = 0, nn = 0, nk = 0;  ///< a block's L1 tiles along M, N and K
  double steps = 0;                     ///< a block's L1 steps: nm * nn * nk
  // One block's pipes, seconds.
  double chip_reads = 0;  ///< bytes all blocks read from GM (the rest hits L2)
  double gm_core = 0;     ///< one core's GM read rate, bytes per second
  double reads = 0;       ///< bytes one block's MTE2 reads (from GM or L2) into L1
  double mte2 = 0;
  double mte1_step = 0;   ///< per L1 step
  double mte1_bytes = 0;  ///< bytes MTE1 moves L1 -> L0A/L0B per L1 step
  double cube = 0;
  double vec_pass = 0;  ///< one vector pass over a block's output
  double residual = 0;  ///< bytes of the residual operand a block reads in its epilogue
  double out = 0;       ///< the output stage, with the epilogue
  // The pipeline.
  double t2 = 0, t1 = 0, tc = 0;          ///< MTE2, MTE1 and Cube per L1 step
  double bases = 0;                       ///< base blocks per L1 step
  double inner = 0;                       ///< the L0 stages of one L1 step
  double stream = 0;                      ///< all L1 steps of a block
  double n_out = 0, tile = 0, t_out = 0;  ///< output tiles; stream and output per tile
  double block = 0;                       ///< one block on one core, with its fixed overhead
  double cap = 0;                         ///< the whole operator at the chip's GM bandwidth
};

/// The blocks (batch x cores along M x cores along N) in waves over the cube cores, and each
/// block's L1 tiles.
inline void cube_blocks(const Soc& s, const Model& md, const Values& v, CubeRun& r) noexcept {
  r.f = s.frequency_ghz * 1e9;
  const std::int64_t m_frac = ceil_div(md.m, 16), n_frac = ceil_div(md.n, 16);
  const std::int64_t per_m = ceil_div(m_frac, v[block_m]), per_n = ceil_div(n_frac, v[block_n]);
  r.used_m = ceil_div(m_frac, per_m), r.used_n = ceil_div(n_frac, per_n);
  r.mc = per_m * 16, r.nc = per_n * 16, r.kp = round_up(md.k, md.k0);
  r.blocks = md.batch * r.used_m * r.used_n;
  r.active = std::min<std::int64_t>(r.blocks, s.cube_cores);
  r.waves = ceil_div(r.blocks, s.cube_cores);
  const std::int64_t tm = v[m_l0] * v[m_step], tn = v[n_l0] * v[n_step];
  const std::int64_t tk = v[k_l0] * v[k_step];
  r.nm = ceil_div(r.mc, tm), r.nn = ceil_div(r.nc, tn), r.nk = ceil_div(r.kp, tk);
  r.steps = static_cast<double>(r.nm * r.nn * r.nk);
}

/// MTE2: a block's GM -> L1 traffic, and how much of all blocks' traffic reaches GM past L2.
inline void cube_mte2(const Soc& s, const Model& md, const Values& v, CubeRun& r) noexcept {
  const std::int64_t in = md.in_bytes;
  const double a_panel = static_cast<double>(r.mc * r.kp * in) * md.a_gm_factor;
  const double b_panel = static_cast<double>(r.kp * r.nc * in);
  double reads_a = a_panel * static_cast<double>(r.nn);
  double reads_b = b_panel * static_cast<double>(r.nm);
  if (r.nk == 1) {
    if (v[order] == 0) {
      reads_a = a_panel;  // M outer: the A tile (tm x K) stays in L1 across the N tiles
    } else {
      reads_b = b_panel;
    }
  }
  const double reads = reads_a + reads_b;
  r.reads = reads;
  // L2: data shared by concurrently running blocks is fetched from GM once; a block's own
  // re-reads hit L2 when the working set of all active blocks fits.
  const double unique =
      static_cast<double>(md.batch) * static_cast<double>(md.m * md.k * in) * md.a_gm_factor +
      static_cast<double>((md.b_shared ? 1 : md.batch) * md.k * md.n * in);
  const double working = std::min(unique, static_cast<double>(r.active) * (a_panel + b_panel));
  const double share_a = static_cast<double>(std::min(r.used_n, r.active));
  const double share_b =
      static_cast<double>(std::min(r.used_m * (md.b_shared ? md.batch : 1), r.active));
  double chip_reads = 0;
  if (working <= s.l2_usable_fraction * static_cast<double>(s.l2_bytes)) {
    chip_reads = unique;
  } else {
    chip_reads = static_cast<double>(r.blocks) * (reads_a / share_a + reads_b / share_b);
  }
  r.chip_reads = std::max(unique, std::min(chip_reads, reads * static_cast<double>(r.blocks)));
  const double gm_fraction = r.chip_reads / (reads * static_cast<double>(r.blocks));
  r.gm_core = std::min(s.gm_read * r.f, s.gm_bandwidth / static_cast<double>(r.active)) *
              (v[format] == 0 ? s.nd2nz_efficiency : 1.0);
  r.mte2 = reads * (gm_fraction / r.gm_core + (1 - gm_fraction) / (s.l2_read * r.f));
}

/// MTE1 (L1 -> L0A/L0B, keeping whichever operand is cheaper to reload resident) and the Cube:
/// one 16 x k0 x 16 fractal per cycle per `cube_fractals_per_cycle`, plus issue overhead.
inline void cube_l0(const Soc& s, const Model& md, const Values& v, CubeRun& r) noexcept {
  const std::int64_t in = md.in_bytes;
  const std::int64_t bml0 = v[m_l0], bnl0 = v[n_l0], bkl0 = v[k_l0];
  const std::int64_t tm = bml0 * v[m_step], tn = bnl0 * v[n_step], tk = bkl0 * v[k_step];
  const double fill =
      static_cast<double>(r.mc * r.nc * r.kp) / (static_cast<double>(tm * tn * tk) * r.steps);
  const double a_cost = static_cast<double>(tm * tk * in) / s.l1_to_l0a;
  const double b_cost = static_cast<double>(tk * tn * in) / s.l1_to_l0b;
  const bool keep_a = a_cost * static_cast<double>(v[n_step]) + b_cost <=
                      a_cost + b_cost * static_cast<double>(v[m_step]);
  r.mte1_step = (keep_a ? a_cost * static_cast<double>(v[n_step]) + b_cost
                        : a_cost + b_cost * static_cast<double>(v[m_step])) *
                fill / r.f;
  const auto a_bytes = static_cast<double>(tm * tk * in),
             b_bytes = static_cast<double>(tk * tn * in);
  r.mte1_bytes = (keep_a ? a_bytes * static_cast<double>(v[n_step]) + b_bytes
                         : a_bytes + b_bytes * static_cast<double>(v[m_step])) *
                 fill;
  const double fractals = static_cast<double>((r.mc / 16) * (r.kp / md.k0) * (r.nc / 16));
  const double mmads =
      static_cast<double>(ceil_div(r.mc, bml0) * ceil_div(r.nc, bnl0) * ceil_div(r.kp, bkl0));
  r.cube = (fractals / s.cube_fractals_per_cycle + mmads * s.mmad_overhead_cycles) / r.f;
}

/// The output stage: FixPipe to GM (A2) or L0C -> UB -> MTE3 (coupled parts), with the epilogue.
inline void cube_output(const Soc& s, const Model& md, CubeRun& r) noexcept {
  const double f = r.f;
  const double out_elems = static_cast<double>(r.mc * r.nc);
  const double write_rate =
      std::min(s.gm_write * f, s.gm_bandwidth / static_cast<double>(r.active));
  r.vec_pass = out_elems * 2 / s.vector_bytes_per_cycle / f;
  r.residual = md.extra_input_bytes / static_cast<double>(md.batch * md.m * md.n) * out_elems;
  if (s.split) {
    r.out = out_elems * static_cast<double>(md.out_bytes) / std::min(s.fixpipe * f, write_rate);
    const double vector_passes = md.epilogue_passes - md.epilogue_fixpipe_passes;
    if (vector_passes > 0 || r.residual > 0) {
      // AIC -> AIV goes through GM/L2; two vector cores per cube core.
      const double bytes = out_elems * static_cast<double>(md.out_bytes);
      r.out += bytes / (s.l2_write * f) + bytes / (s.l2_read * f) + r.residual / (s.gm_read * f) +
               vector_passes * r.vec_pass / 2;
    }
  } else {
    r.out = out_elems * 4 / (s.l0c_to_ub * f) +
            out_elems * static_cast<double>(md.out_bytes) / std::min(s.ub_to_gm * f, write_rate) +
            md.epilogue_passes * r.vec_pass + r.residual / r.gm_core;
  }
}

/// A block's time from its stages: per L1 step, L0 stages overlap when L0 is double-buffered,
/// MTE2 overlaps them when L1 is; FixPipe overlaps the next tile when L0C is. Fill and drain are
/// exposed. A two-stage pipeline of n items with stage times a, b: a + b + (n - 1) max(a, b)
/// when double-buffered (fill, steady state, drain), n (a + b) when not.
inline void cube_pipeline(const Soc& s, const Model& md, const Values& v, CubeRun& r) noexcept {
  r.t2 = r.mte2 / r.steps, r.t1 = r.mte1_step, r.tc = r.cube / r.steps;
  const double t1 = r.t1, tc = r.tc, steps = r.steps;
  r.bases = static_cast<double>(v[m_step] * v[n_step] * v[k_step]);
  r.inner = v[db_l0] ? (t1 + tc) / r.bases + (r.bases - 1) / r.bases * std::max(t1, tc) : t1 + tc;
  r.stream =
      v[db_l1] ? r.t2 + r.inner + (steps - 1) * std::max(r.t2, r.inner) : steps * (r.t2 + r.inner);
  r.n_out = static_cast<double>(r.nm * r.nn);
  r.tile = r.stream / r.n_out;
  r.t_out = r.out / r.n_out;
  r.block =
      v[db_l0c] ? r.tile + r.t_out + (r.n_out - 1) * std::max(r.tile, r.t_out) : r.stream + r.out;
  r.block += s.block_overhead_cycles / r.f;
  const double total_out = static_cast<double>(md.batch * md.m * md.n * md.out_bytes);
  r.cap = (r.chip_reads + total_out + md.extra_input_bytes) / s.gm_bandwidth;
}

/// Where a cube configuration's `seconds` go: the stream (MTE2 -> MTE1/Cube per L1 step), then
/// the output stage per output tile.
inline void cube_profile(const Soc& s, const Model& md, const Values& v, const CubeRun& r,
                         double seconds, Profile& p) noexcept {
  const auto waves = static_cast<double>(r.waves);
  p = Profile{.family = Family::cube,
              .blocks = r.blocks,
              .cores = r.active,
              .waves = r.waves,
              .launch = s.launch_overhead_seconds,
              .block = r.block,
              .wave = std::max(waves * r.block, r.cap) / waves,
              .block_overhead = s.block_overhead_cycles / r.f,
              .transdata = v[format] == 1 && md.tensors_nd ? md.format_transdata_seconds : 0.0,
              .seconds = seconds};
  two_stage(r.steps, r.t2, r.inner, v[db_l1] != 0, p.pipes[Pipe::mte2], p.pipes[Pipe::cube]);
  p.pipes[Pipe::mte1] = p.pipes[Pipe::cube];
  const double sub = v[db_l0] ? 1 / r.bases : 1.0;
  p.pipes[Pipe::mte1].end -= r.tc * sub;
  p.pipes[Pipe::cube].start += r.t1 * sub;
  PipeSpan out_span;
  if (v[db_l0c]) {
    PipeSpan stream_span;
    two_stage(r.n_out, r.tile, r.t_out, true, stream_span, out_span);
    const double stretch = r.stream > 0 ? stream_span.end / r.stream : 1.0;
    for (const Pipe q : {Pipe::mte2, Pipe::mte1, Pipe::cube}) {
      p.pipes[q].start *= stretch;
      p.pipes[q].end *= stretch;
    }
  } else {
    out_span = {r.stream, r.stream + r.out, 0};
  }
  p.pipes[Pipe::mte2].busy = r.mte2;
  p.pipes[Pipe::mte1].busy = r.t1 * r.steps;
  p.pipes[Pipe::cube].busy = r.cube;
  const double epilogue =
      s.split ? ((md.epilogue_passes - md.epilogue_fixpipe_passes > 0 || r.residual > 0)
                     ? (md.epilogue_passes - md.epilogue_fixpipe_passes) * r.vec_pass / 2
                     : 0.0)
              : md.epilogue_passes * r.vec_pass;
  p.pipes[Pipe::mte3] = out_span;
  p.pipes[Pipe::mte3].busy = r.out - std::max(0.0, epilogue);
  if (epilogue > 0) {
    p.pipes[Pipe::vector] = out_span;
    p.pipes[Pipe::vector].busy = epilogue;
  }
  p.bound = classify(p);
}

/// The energy model's picojoules per cube MAC for an input width in bytes.
[[nodiscard]] constexpr double mac_pj(const Soc& s, std::int64_t in_bytes) noexcept {
  if (in_bytes <= 1) return s.mac_pj_int8;
  return in_bytes == 2 ? s.mac_pj_fp16 : s.mac_pj_fp32;
}

/// Bytes one TransData pass over `seconds` moves through GM: it runs at its share of the GM
/// bandwidth (transdata_efficiency).
[[nodiscard]] constexpr double transdata_bytes(const Soc& s, double seconds) noexcept {
  return seconds * s.gm_bandwidth * s.transdata_efficiency;
}

/// Joules of a cube configuration that fits, from the same run as its time: the padded MACs
/// every block computes, the epilogue's vector repeats, GM traffic (what passes L2, the output,
/// the residual, TransData), L2 traffic (every MTE2 read, the output, AIC -> AIV on split
/// parts), local traffic (MTE2 into L1, MTE1 into L0A/L0B, the fp32 accumulator out of L0C and,
/// on coupled parts, through UB), and static power over `seconds`.
/// docs/simulator.md#the-energy-model.
[[nodiscard]] inline double cube_energy(const Soc& s, const Model& md, const Values& v,
                                        const CubeRun& r, double seconds) noexcept {
  const auto blocks = static_cast<double>(r.blocks);
  const double macs = blocks * static_cast<double>(r.mc * r.nc * r.kp);
  const double out_bytes = static_cast<double>(md.batch * md.m * md.n * md.out_bytes);
  const double out_elems = blocks * static_cast<double>(r.mc * r.nc);
  const double mte2_bytes = r.reads * blocks;
  const double vector_passes =
      s.split ? md.epilogue_passes - md.epilogue_fixpipe_passes : md.epilogue_passes;
  double gm = r.chip_reads + out_bytes + md.extra_input_bytes;
  if (v[format] == 1 && md.tensors_nd) gm += transdata_bytes(s, md.format_transdata_seconds);
  double l2 = mte2_bytes + out_bytes;
  double local = mte2_bytes + r.mte1_bytes * r.steps * blocks + out_elems * 4;
  if (s.split) {
    if (vector_passes > 0 || r.residual > 0) l2 += 2 * out_bytes;
  } else {
    local += out_elems * 4 + out_bytes;  // L0C -> UB, UB -> MTE3
  }
  const double repeats =
      vector_passes > 0 ? vector_passes * out_elems * 2 / s.vector_bytes_per_cycle : 0.0;
  const double pj = macs * mac_pj(s, md.in_bytes) + repeats * s.vector_repeat_pj +
                    gm * s.gm_pj_per_byte + l2 * s.l2_pj_per_byte + local * s.local_pj_per_byte;
  return pj * 1e-12 + s.static_watts * seconds;
}
}  // namespace timing

/// MatMul / BatchMatMul / Conv2D (img2col GEMM) on the cube. With a `Profile*` sink, also fills
/// `*sink` with where the time goes (its own instantiation: the search's is unchanged).
/// With a `Joules*` sink, also the configuration's energy (docs/simulator.md#the-energy-model).
/// `gnu::flatten` inlines the steps: the oracle calls this millions of times, and the steps as
/// calls cost about a sixth more time per call.
template <class Sink = NoProfile>
[[nodiscard, gnu::flatten]] inline Outcome cube_time(const Soc& s, const Model& md, const Values& v,
                                                     [[maybe_unused]] Sink sink = {}) noexcept {
  if (const Outcome o = timing::cube_overflow(s, md, v); o.buffer != Buffer::none) return o;
  timing::CubeRun r;
  timing::cube_blocks(s, md, v, r);
  timing::cube_mte2(s, md, v, r);
  timing::cube_l0(s, md, v, r);
  timing::cube_output(s, md, r);
  timing::cube_pipeline(s, md, v, r);
  Outcome o;
  o.seconds = s.launch_overhead_seconds + std::max(static_cast<double>(r.waves) * r.block, r.cap);
  if (v[format] == 1 && md.tensors_nd) o.seconds += md.format_transdata_seconds;
  if constexpr (std::is_same_v<Sink, Profile*>) {
    timing::cube_profile(s, md, v, r, o.seconds, *sink);
  } else if constexpr (std::is_same_v<Sink, Joules*>) {
    sink->value = timing::cube_energy(s, md, v, r, o.seconds);
  }
  return o;
}

namespace timing {

/// What vector_time derives from a configuration that fits, step by step; its profile reads the
/// same values.
struct VectorRun {
  bool precise = false;      ///< the high_precision implementation (fp32 compute)
  double compute_bytes = 2;  ///< element width the vector unit computes in
  double f = 0;              ///< the vector cores' clock, Hz
  std::int64_t cores = 0;
  double reread = 1;  ///< GM reads per input byte (a row longer than the tile is read twice)
  double tile = 0;    ///< elements per UB tile
  double tiles = 0;   ///< UB tiles per core
  double t_in = 0, t_vec = 0, t_out = 0;  ///< MTE2, Vector and MTE3 per tile, seconds
  double tile_repeats = 0;                ///< vector repeats per tile, all passes
  double core = 0;                        ///< one core, with its fixed overhead
  double cap = 0;                         ///< the whole operator at the chip's GM bandwidth
};

/// The work units (rows for row ops, 32-byte blocks for the rest) over the cores, and each
/// core's UB tiles.
inline void vector_tiles(const Soc& s, const Model& md, const Values& v, VectorRun& r) noexcept {
  r.f = s.vector_op_frequency_ghz() * 1e9;
  const std::int64_t unit = md.row > 0 ? md.row : 16;
  const std::int64_t units = md.row > 0 ? md.rows : ceil_div(md.elements, 16);
  r.cores = std::max<std::int64_t>(1, std::min<std::int64_t>(v[block_dim], units));
  const double per_core = static_cast<double>(ceil_div(units, r.cores) * unit);
  // A row longer than the tile is processed in pieces and re-read (two passes over GM).
  r.tile = static_cast<double>(v[ub_tile]);
  if (md.row > 0) {
    if (md.row > v[ub_tile]) {
      r.reread = md.reduce_op ? 1.0 : 2.0;
    } else {
      r.tile = static_cast<double>((v[ub_tile] / md.row) * md.row);
    }
  }
  r.tile = std::min(r.tile, per_core);
  r.tiles = std::ceil(per_core / r.tile);
}

/// The fraction of vector lanes a row op uses, and the passes it adds: a short row wastes lanes
/// of the 128-lane repeat (ND) or pads to 16-column fractals (NZ), with one extra pass to reduce
/// across fractals.
struct Lanes {
  double used = 1;
  double extra_passes = 0;
};

[[nodiscard]] inline Lanes row_lanes(const Soc& s, const Model& md, const Values& v,
                                     double compute_bytes) noexcept {
  Lanes l;
  if (!md.row_lanes) return l;
  const auto r = md.row;
  if (md.softmax_formats && v[format] == 1) {
    l.used = static_cast<double>(r) / static_cast<double>(round_up(r, 16));
    l.extra_passes = 1;
  } else {
    const std::int64_t per_repeat =
        static_cast<std::int64_t>(s.vector_bytes_per_cycle / compute_bytes);
    l.used = r >= per_repeat ? static_cast<double>(r) / static_cast<double>(round_up(r, per_repeat))
                             : static_cast<double>(r) / static_cast<double>(per_repeat);
    l.used = std::max(l.used, 0.25);  // several short rows share a repeat through masks
  }
  return l;
}

/// MTE2 -> Vector -> MTE3 per tile, and a core's time over its tiles.
inline void vector_stages(const Soc& s, const Model& md, const Values& v, VectorRun& r) noexcept {
  const double f = r.f;
  const Lanes lanes = row_lanes(s, md, v, r.compute_bytes);
  const double passes =
      (md.passes + lanes.extra_passes) * (r.compute_bytes / 2) + (r.precise ? 2.0 : 0.0);
  const double repeats =
      std::ceil(r.tile * r.compute_bytes / s.vector_bytes_per_cycle / lanes.used);
  const double instructions = std::ceil(passes) * std::ceil(repeats / 255);
  r.t_vec = (repeats * passes + instructions * s.vector_instruction_overhead_cycles) / f;
  r.tile_repeats = repeats * passes;
  const double share = s.gm_bandwidth / static_cast<double>(r.cores);
  r.t_in = r.tile * md.in_per_elem * r.reread / std::min(s.gm_read * f, share);
  r.t_out = r.tile * md.out_per_elem / std::min(std::min(s.ub_to_gm, s.gm_write) * f, share);
  r.core = v[db_ub]
               ? r.t_in + r.t_vec + r.t_out + (r.tiles - 1) * std::max({r.t_in, r.t_vec, r.t_out})
               : r.tiles * (r.t_in + r.t_vec + r.t_out);
  r.core += s.block_overhead_cycles / f;
  r.cap = md.chip_bytes * (r.reread > 1 ? 1.5 : 1.0) / s.gm_bandwidth;
}

/// Whether a SoftmaxV2 configuration's kernel format differs from its tensor's: then TransData
/// runs in front and behind.
[[nodiscard]] inline bool softmax_transdata(const Model& md, const Values& v) noexcept {
  return md.softmax_formats && (v[format] == 1) != md.tensor_nz;
}

/// Where a vector configuration's `seconds` go: MTE2 -> Vector -> MTE3 over a core's tiles.
inline void vector_profile(const Soc& s, const Model& md, const Values& v, const VectorRun& r,
                           double seconds, Profile& p) noexcept {
  p = Profile{.family = Family::vector,
              .blocks = r.cores,
              .cores = r.cores,
              .waves = 1,
              .launch = s.launch_overhead_seconds,
              .block = r.core,
              .wave = std::max(r.core, r.cap),
              .block_overhead = s.block_overhead_cycles / r.f,
              .transdata = softmax_transdata(md, v) ? 2 * md.format_transdata_seconds : 0,
              .seconds = seconds};
  const double t_in = r.t_in, t_vec = r.t_vec, t_out = r.t_out, tiles = r.tiles;
  const double period = v[db_ub] ? std::max({t_in, t_vec, t_out}) : t_in + t_vec + t_out;
  p.pipes[Pipe::mte2] = {0, (tiles - 1) * period + t_in, tiles * t_in};
  p.pipes[Pipe::vector] = {t_in, (tiles - 1) * period + t_in + t_vec, tiles * t_vec};
  p.pipes[Pipe::mte3] = {t_in + t_vec, (tiles - 1) * period + t_in + t_vec + t_out, tiles * t_out};
  p.bound = classify(p);
}

/// Joules of a vector configuration that fits, from the same run as its time: every core's
/// tiles in and out of GM (through L2 and UB), their vector repeats, TransData, and static power
/// over `seconds`. docs/simulator.md#the-energy-model.
[[nodiscard]] inline double vector_energy(const Soc& s, const Model& md, const Values& v,
                                          const VectorRun& r, double seconds) noexcept {
  const double tiles = static_cast<double>(r.cores) * r.tiles;
  double gm = tiles * r.tile * (md.in_per_elem * r.reread + md.out_per_elem);
  const double ub = gm;
  if (softmax_transdata(md, v)) gm += 2 * transdata_bytes(s, md.format_transdata_seconds);
  const double pj = tiles * r.tile_repeats * s.vector_repeat_pj + gm * s.gm_pj_per_byte +
                    gm * s.l2_pj_per_byte + ub * s.local_pj_per_byte;
  return pj * 1e-12 + s.static_watts * seconds;
}
}  // namespace timing

/// Vector operators (elementwise chains, reductions, SoftmaxV2, LayerNorm, pools, depthwise,
/// TransData): MTE2 -> Vector -> MTE3 over UB tiles. `Sink` and `gnu::flatten` as for cube_time.
template <class Sink = NoProfile>
[[nodiscard, gnu::flatten]] inline Outcome vector_time(const Soc& s, const Model& md,
                                                       const Values& v,
                                                       [[maybe_unused]] Sink sink = {}) noexcept {
  timing::VectorRun r;
  r.precise = md.precision_variant && v[impl] == 1;
  r.compute_bytes = r.precise ? 4.0 : 2.0;
  const double ub_per = md.ub_per_elem + (r.precise ? 4.0 : 0.0);
  const std::int64_t copies = v[db_ub] ? 2 : 1;
  if (const auto need =
          static_cast<std::int64_t>(std::ceil(static_cast<double>(v[ub_tile]) * ub_per)) * copies;
      need > s.ub_bytes) {
    return overflow(Buffer::ub, need, s.ub_bytes);
  }
  timing::vector_tiles(s, md, v, r);
  timing::vector_stages(s, md, v, r);
  Outcome o;
  o.seconds = s.launch_overhead_seconds + std::max(r.core, r.cap);
  if (timing::softmax_transdata(md, v)) {
    o.seconds += 2 * md.format_transdata_seconds;  // TransData in front and behind
  }
  if constexpr (std::is_same_v<Sink, Profile*>) {
    timing::vector_profile(s, md, v, r, o.seconds, *sink);
  } else if constexpr (std::is_same_v<Sink, Joules*>) {
    sink->value = timing::vector_energy(s, md, v, r, o.seconds);
  }
  return o;
}

/// The time of a configuration.
[[nodiscard]] inline Outcome time(const Soc& s, const Model& md, const Values& v) noexcept {
  return md.family == Family::cube ? cube_time(s, md, v) : vector_time(s, md, v);
}

/// The time of a configuration and, in `out`, its energy (the runner's measurements).
[[nodiscard]] inline Outcome time_and_energy(const Soc& s, const Model& md, const Values& v,
                                             Joules& out) noexcept {
  return md.family == Family::cube ? cube_time<Joules*>(s, md, v, &out)
                                   : vector_time<Joules*>(s, md, v, &out);
}

/// The time of a configuration, and where it goes in `out` (for reports).
[[nodiscard]] inline Outcome profile(const Soc& s, const Model& md, const Values& v,
                                     Profile& out) noexcept {
  return md.family == Family::cube ? cube_time<Profile*>(s, md, v, &out)
                                   : vector_time<Profile*>(s, md, v, &out);
}

}  // namespace aoe::sim::detail

#endif  // AOE_MEASURE_SIMULATOR_DETAIL_TIMING_HPP
