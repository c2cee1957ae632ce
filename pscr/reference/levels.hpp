#pragma once
/// @file The radix-q PSCR reduction and back substitution of DESIGN.md §2 in dimension 1, for
/// any n1 (CPU backend, internal). Generic in what a "row" is:
///   2D: a row u_j is a vector of n2 values; the shifted systems A2 + s M2 are tridiagonal;
///   3D: a row u_j is an n2×n3 grid; the shifted systems A2⊗M3 + M2⊗A3 + s M2⊗M3 are 2D problems,
///       solved by the 2D instance of this same driver (DESIGN.md §2, "3D").
/// The operator is A1⊗Mrow + M1⊗Krow + σ M1⊗Mrow, with the shift σ an argument of solve(), so the
/// 3D solver can call the 2D one with σ = c + λ_l.
///
/// A `Rows` policy provides (N = length(), L = kLanes):
/// - `static constexpr int kLanes`: systems solved together in a chunk (chunk arrays hold the L
///   lanes interleaved: value q of lane j at q·L + j);
/// - `index_t length() const`, `index_t lanes() const`, `struct Scratch`,
///   `Scratch make_scratch() const`, `static index_t take_pivoted(Scratch&)` (systems solved with
///   pivoting since the last call, reset);
/// - `void couple(S α, S β, const S* x, S* y, Scratch&) const`: y = (α Mrow + β Krow) x;
/// - `void subtract_couplings(S α1, S β1, const S* x1, S α2, S β2, const S* x2, S* y,
///   Scratch&) const`: y −= (α1 Mrow + β1 Krow) x1 + (α2 Mrow + β2 Krow) x2 (a null x adds 0);
/// - `double solve(index_t lanes, const S* shifts, const char* singular, S* x, S* y, Scratch&)
///   const`: (Krow + s_j Mrow) y_j = x_j for the lanes (x may be overwritten), returns its flops;
/// - `double couple_flops() const`: the flops of one couple().

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <sstream>
#include <vector>

#include "common/error.hpp"
#include "eigen_init/eigen_data.hpp"
#include "pscr/operator.hpp"
#include "pscr/partition.hpp"
#include "pscr/reference/kernels.hpp"
#include "pscr/reference/schedule.hpp"

namespace pscr::reference::detail {

/// @brief Real flops of one operation of Scalar counted as a real one (complex: ×4, the usual
/// convention of LAPACK's operation counts).
template <class Scalar>
constexpr double flop_scale() {
  return is_complex_v<Scalar> ? 4.0 : 1.0;
}

/// @brief Runs fn(task, thread) for task = 0..count−1 on `threads` threads (1: in this thread, no
/// parallel region). An exception thrown by a task is rethrown after the loop, the one of the
/// lowest task when several fail, so the error does not depend on the thread count either.
template <class Fn>
void parallel_tasks(index_t count, int threads, Fn&& fn) {
  if (threads <= 1 || count <= 1) {
    for (index_t t = 0; t < count; ++t) fn(t, 0);
    return;
  }
  std::exception_ptr error;
  index_t error_task = count;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (index_t t = 0; t < count; ++t) {
    try {
      fn(t, omp_get_thread_num());
    } catch (...) {
#pragma omp critical(pscr_reference_task_error)
      if (t < error_task) {
        error_task = t;
        error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

/// @brief Work arrays of one solve: per thread, the lanes' right-hand sides and solutions and
/// two coupling rows; the slots of split blocks. Sized once by LevelSolver::make_workspace.
template <class Scalar, class RowScratch>
struct LevelWorkspace {
  struct Thread {
    std::vector<Scalar> x;  ///< N × lanes: right-hand sides of a chunk, interleaved (q·L + j)
    std::vector<Scalar> y;  ///< N × lanes: their solutions, interleaved
    std::vector<Scalar> c1, c2;
    std::vector<Scalar> shifts;
    std::vector<char> singular;
    RowScratch rows;
  };
  std::vector<Thread> threads;
  std::vector<Scalar> slots;  ///< slot s, output r: N values at (s·kMaxOutputs + r)·N
};

/// Work (systems × row length) below which a level runs on one thread: a parallel region costs
/// more than it saves there. The result does not depend on it (the schedule fixes every sum).
inline constexpr index_t kParallelWork = index_t(1) << 15;

/// @brief PSCR in dimension 1 over rows of a `Rows` policy (see the file comment).
template <class Scalar, class Rows>
class LevelSolver {
 public:
  using Workspace = LevelWorkspace<Scalar, typename Rows::Scratch>;

  /// @param factor1       (A1, M1), kept by reference: must outlive the solver
  /// @param eigen         eigen-data of factor1 on its radix-4 partition
  /// @param target_tasks  tasks per level to aim at (1: never split a block, for inner solves)
  LevelSolver(const Factor<Scalar>& factor1, EigenData<Scalar> eigen, Rows rows,
              index_t target_tasks)
      : factor1_(&factor1),
        eigen_(std::move(eigen)),
        rows_(std::move(rows)),
        schedule_(make_schedule(eigen_.partition, rows_.lanes(), target_tasks)) {
    for (const auto& level : schedule_) max_slots_ = std::max(max_slots_, level.slots);
    // The eigenvalue of smallest modulus of the whole pencil (A1, M1): the top level has one
    // block, [0, n1 − 1]. A singular problem (pure Neumann, c = 0) has its zero eigenvalue there.
    const auto& top = eigen_.block(num_levels(), 0);
    for (index_t l = 0; l < top.size(); ++l)
      if (zero_lane_ < 0 || std::abs(top.lambda[l]) < std::abs(top.lambda[zero_lane_]))
        zero_lane_ = l;
  }

  const Rows& rows() const { return rows_; }
  const EigenData<Scalar>& eigen() const { return eigen_; }
  int num_levels() const { return eigen_.partition.num_levels(); }
  index_t size() const { return eigen_.partition.size(); }
  /// Eigenvalue of smallest modulus of (A1, M1), and its index in the top-level block.
  Scalar smallest_eigenvalue() const { return eigen_.block(num_levels(), 0).lambda[zero_lane_]; }

  /// @brief Work arrays for `threads` threads.
  Workspace make_workspace(int threads) const {
    Workspace ws;
    const index_t n = rows_.length();
    const index_t lanes = rows_.lanes();
    ws.threads.resize(std::max(1, threads));
    for (auto& t : ws.threads) {
      t.x.assign(lanes * n, Scalar(0));
      t.y.assign(lanes * n, Scalar(0));
      t.c1.assign(n, Scalar(0));
      t.c2.assign(n, Scalar(0));
      t.shifts.assign(lanes, Scalar(0));
      t.singular.assign(lanes, 0);
      t.rows = rows_.make_scratch();
    }
    ws.slots.assign(max_slots_ * kMaxOutputs * n, Scalar(0));
    return ws;
  }

  /// @brief Shifted systems solved with pivoting since the last call, summed over threads.
  static index_t take_pivoted(Workspace& ws) {
    index_t total = 0;
    for (auto& t : ws.threads) total += Rows::take_pivoted(t.rows);
    return total;
  }

  /// @brief Solves (A1⊗Mrow + M1⊗Krow + σ M1⊗Mrow) U = F.
  /// @param F  n1 × N, C order (row j at F + j·N): the right-hand side, overwritten (it holds
  ///           the reduced right-hand sides f^(i) afterwards)
  /// @param U  n1 × N: the solution (must not overlap F)
  /// @param singular  the problem is singular with its null space in the lane of the smallest
  ///           eigenvalue of (A1, M1): that lane's shift is taken as exactly 0 and the row policy
  ///           returns a particular solution of its singular system (see Solver)
  /// @param threads  1: no parallel region (inner solves of 3D); more: OpenMP threads
  /// @return the flops done
  double solve(Scalar sigma, bool singular, Scalar* F, Scalar* U, Workspace& ws,
               int threads) const {
    const int k = num_levels();
    double flops = 0;
    for (int i = 1; i < k; ++i) {  // reduction, eqs. (13)–(14), myllykoski2018
      flops += run_level(i, /*back=*/false, sigma, false, F, U, ws, threads);
      flops += update_kept(i, sigma, F, U, ws, threads);
    }
    for (int i = k; i >= 1; --i)  // back substitution, eqs. (15)–(16)
      flops += run_level(i, /*back=*/true, sigma, singular && i == k, F, U, ws, threads);
    return flops;
  }

 private:
  struct Source {
    index_t component;  ///< row of the block's stored eigenvector components
    const Scalar* vec;
  };
  struct Output {
    index_t component;
    index_t row;  ///< row of U
  };

  /// Outputs of block b in a phase: back substitution solves the rows of J_{i−1} ∩ B;
  /// the reduction needs the first and last rows next to kept rows (eq. 24).
  index_t outputs_of(const Block& block, bool back, Output* out) const {
    index_t count = 0;
    auto component = [&](index_t row) {
      const auto& rows = block.component_rows;
      return static_cast<index_t>(std::lower_bound(rows.begin(), rows.end(), row) - rows.begin());
    };
    if (back) {
      for (index_t r : block.inner_rows) out[count++] = {component(r), r};
    } else {
      if (block.first > 0) out[count++] = {component(block.first), block.first};
      if (block.last < size() - 1 && !(count > 0 && out[count - 1].row == block.last))
        out[count++] = {component(block.last), block.last};
    }
    return count;
  }

  /// T_{j,j'} = α Mrow + β Krow with α = (A1 + σ M1)_{jj'}, β = (M1)_{jj'} (DESIGN.md §1).
  void coupling_coefficients(index_t j, index_t jp, Scalar sigma, Scalar& alpha,
                             Scalar& beta) const {
    alpha = factor1_->A(j, jp) + sigma * factor1_->M(j, jp);
    beta = factor1_->M(j, jp);
  }

  /// Sources of block b: g_s = F_s on J_{i−1} ∩ B; in back substitution the coupling rows
  /// −T_{a,a−1} u_{a−1} and −T_{b,b+1} u_{b+1} are added at the first and last rows (eq. 28).
  index_t sources_of(const Block& block, bool back, Scalar sigma, const Scalar* F, const Scalar* U,
                     typename Workspace::Thread& ts, Source* src, double& flops) const {
    const index_t n = rows_.length();
    const auto& comp = block.component_rows;
    auto component = [&](index_t row) {
      return static_cast<index_t>(std::lower_bound(comp.begin(), comp.end(), row) - comp.begin());
    };
    index_t count = 0;
    for (index_t r : block.inner_rows) src[count++] = {component(r), F + r * n};
    if (!back) return count;
    Scalar* scratch[2] = {ts.c1.data(), ts.c2.data()};
    int used = 0;
    auto add_coupling = [&](index_t row, index_t neighbour) {
      Scalar alpha, beta;
      coupling_coefficients(row, neighbour, sigma, alpha, beta);
      Scalar* c = scratch[used++];
      rows_.couple(-alpha, -beta, U + neighbour * n, c, ts.rows);
      flops += rows_.couple_flops();
      const index_t comp_row = component(row);
      for (index_t e = 0; e < count; ++e) {
        if (src[e].component != comp_row) continue;
        // The row already has a source: fold the coupling into it.
        const Scalar* old = src[e].vec;
        for (index_t q = 0; q < n; ++q) c[q] += old[q];
        flops += flop_scale<Scalar>() * n;
        src[e].vec = c;
        return;
      }
      src[count++] = {comp_row, c};
    };
    if (block.first > 0) add_coupling(block.first, block.first - 1);
    if (block.last < size() - 1) add_coupling(block.last, block.last + 1);
    return count;
  }

  Scalar* output_row(const Task& task, index_t r, index_t row, Scalar* U, Workspace& ws) const {
    const index_t n = rows_.length();
    if (task.slot < 0) return U + row * n;
    return ws.slots.data() + (task.slot * kMaxOutputs + r) * n;
  }

  /// One task of level i: for each chunk, right-hand sides Σ_s W_{s,l} g_s (eq. 26/28), the
  /// shifted solves, and the outputs Σ_l W_{r,l} y_l (eq. 24/27).
  double run_task(int i, bool back, Scalar sigma, bool singular, const LevelSchedule& ls,
                  const Task& task, Scalar* F, Scalar* U, Workspace& ws, int thread) const {
    auto& ts = ws.threads[thread];
    const Level& level = eigen_.partition.level(i);
    const index_t n = rows_.length();
    double flops = 0;
    // Zero the outputs this task accumulates into.
    {
      index_t last_block = -1;
      for (index_t c = task.chunk_begin; c < task.chunk_end; ++c)
        for (index_t g = ls.chunks[c].group_begin; g < ls.chunks[c].group_end; ++g) {
          const index_t b = ls.groups[g].block;
          if (b == last_block) continue;
          last_block = b;
          Output out[kMaxOutputs];
          const index_t nout = outputs_of(level.blocks[b], back, out);
          for (index_t r = 0; r < nout; ++r)
            std::fill_n(output_row(task, r, out[r].row, U, ws), n, Scalar(0));
        }
    }
    index_t source_block = -1;  // block whose sources are in `src` (coupling rows in c1, c2)
    Source src[kMaxSources];
    index_t nsrc = 0;
    constexpr int L = Rows::kLanes;
    static_assert(L == 1 || L == kKernelLanes, "the kernels exist for 1 and kKernelLanes lanes");
    const LaneKernels<Scalar>& kernels = lane_kernels<Scalar>();
    LaneWeights<L, kMaxSources> wsrc;
    LaneWeights<L, kMaxOutputs> wout;
    Scalar* x = ts.x.data();
    Scalar* y = ts.y.data();
    for (index_t c = task.chunk_begin; c < task.chunk_end; ++c) {
      const Chunk& chunk = ls.chunks[c];
      // Right-hand sides of the lanes, eq. (26)/(28): x_l = Σ_s W_{s,l} g_s.
      int lane = 0;
      for (index_t g = chunk.group_begin; g < chunk.group_end; ++g) {
        const LaneGroup& group = ls.groups[g];
        const BlockEigen<Scalar>& eig = eigen_.block(i, group.block);
        if (group.block != source_block) {
          nsrc = sources_of(level.blocks[group.block], back, sigma, F, U, ts, src, flops);
          source_block = group.block;
        }
        const index_t m = eig.size();
        const Scalar* vecs[kMaxSources];
        for (index_t e = 0; e < nsrc; ++e) vecs[e] = src[e].vec;
        for (index_t l = group.l_begin; l < group.l_end; ++l) {
          const int j = lane + static_cast<int>(l - group.l_begin);
          for (index_t e = 0; e < nsrc; ++e) {
            const Scalar w = eig.W[src[e].component * m + l];
            wsrc.re[e][j] = std::real(w);
            wsrc.im[e][j] = std::imag(w);
          }
          const bool zero_lane = singular && group.block == 0 && l == zero_lane_;
          ts.shifts[j] = zero_lane ? Scalar(0) : eig.lambda[l] + sigma;
          ts.singular[j] = zero_lane ? 1 : 0;
        }
        const int lanes_end = lane + static_cast<int>(group.lanes());
        if constexpr (L == 1) {
          kernels.form1(n, lane, lanes_end, static_cast<int>(nsrc), vecs, wsrc, x);
        } else {
          kernels.form(n, lane, lanes_end, static_cast<int>(nsrc), vecs, wsrc, x);
        }
        flops += flop_scale<Scalar>() * (2.0 * nsrc - 1.0) * n * group.lanes();
        lane = lanes_end;
      }
      // Padding lanes: a valid shift and a zero right-hand side.
      for (int j = lane; j < L; ++j) {
        ts.shifts[j] = ts.shifts[0];
        ts.singular[j] = 0;
        for (index_t q = 0; q < n; ++q) x[q * L + j] = Scalar(0);
      }
      try {
        flops += rows_.solve(chunk.lanes, ts.shifts.data(), ts.singular.data(), x, y, ts.rows);
      } catch (const SolverError& e) {
        const Block& block = level.blocks[ls.groups[chunk.group_begin].block];
        std::ostringstream msg;
        msg << "PSCR: a shifted system Krow + (λ + σ) Mrow of level " << i << ", block ["
            << block.first << ", " << block.last << "] (σ = " << sigma
            << ") is singular: the shift hits an eigenvalue, or the projected problem of the "
               "block is singular ("
            << e.what() << ")";
        throw SolverError(msg.str());
      }
      // Outputs, eq. (24)/(27): v_r = Σ_l W_{r,l} y_l.
      lane = 0;
      for (index_t g = chunk.group_begin; g < chunk.group_end; ++g) {
        const LaneGroup& group = ls.groups[g];
        const BlockEigen<Scalar>& eig = eigen_.block(i, group.block);
        const index_t m = eig.size();
        Output out[kMaxOutputs];
        const index_t nout = outputs_of(level.blocks[group.block], back, out);
        const int lanes_end = lane + static_cast<int>(group.lanes());
        for (index_t r = 0; r < nout; ++r) {
          for (index_t l = group.l_begin; l < group.l_end; ++l) {
            const int j = lane + static_cast<int>(l - group.l_begin);
            const Scalar w = eig.W[out[r].component * m + l];
            wout.re[r][j] = std::real(w);
            wout.im[r][j] = std::imag(w);
          }
          Scalar* dst = output_row(task, r, out[r].row, U, ws);
          if constexpr (L == 1) {
            kernels.gather1(n, lane, lanes_end, static_cast<int>(r), wout, y, dst);
          } else {
            kernels.gather(n, lane, lanes_end, static_cast<int>(r), wout, y, dst);
          }
        }
        flops += flop_scale<Scalar>() * 2.0 * nout * n * group.lanes();
        lane = lanes_end;
      }
    }
    return flops;
  }

  /// All partial solutions of level i, then the slots of split blocks summed in slice order.
  double run_level(int i, bool back, Scalar sigma, bool singular, Scalar* F, Scalar* U,
                   Workspace& ws, int threads) const {
    const LevelSchedule& ls = schedule_[i - 1];
    std::vector<double> task_flops(ls.tasks.size(), 0.0);
    const int team = ls.systems * rows_.length() >= kParallelWork ? threads : 1;
    parallel_tasks(static_cast<index_t>(ls.tasks.size()), team, [&](index_t t, int thread) {
      task_flops[t] = run_task(i, back, sigma, singular, ls, ls.tasks[t], F, U, ws, thread);
    });
    double flops = 0;
    for (double f : task_flops) flops += f;
    const index_t n = rows_.length();
    const Level& level = eigen_.partition.level(i);
    for (const Split& split : ls.splits) {
      Output out[kMaxOutputs];
      const index_t nout = outputs_of(level.blocks[split.block], back, out);
      for (index_t r = 0; r < nout; ++r) {
        Scalar* dst = U + out[r].row * n;
        const Scalar* first = ws.slots.data() + (split.slot_begin * kMaxOutputs + r) * n;
        std::copy_n(first, n, dst);
        for (index_t s = 1; s < split.slot_count; ++s) {
          const Scalar* part = ws.slots.data() + ((split.slot_begin + s) * kMaxOutputs + r) * n;
          for (index_t q = 0; q < n; ++q) dst[q] += part[q];
        }
        flops += flop_scale<Scalar>() * 2.0 * n * (split.slot_count - 1);
      }
    }
    return flops;
  }

  /// f^(i+1)_j = f^(i)_j − T_{j,j−1} v_{j−1} − T_{j,j+1} v_{j+1} for j ∈ J_i (eq. 24); the
  /// partial solutions v sit in U's rows next to j, zero for blocks without work.
  double update_kept(int i, Scalar sigma, Scalar* F, Scalar* U, Workspace& ws, int threads) const {
    const Level& level = eigen_.partition.level(i);
    const LevelSchedule& ls = schedule_[i - 1];
    const index_t n = rows_.length();
    const index_t nkept = static_cast<index_t>(level.kept.size());
    const index_t nblocks = static_cast<index_t>(level.blocks.size());
    std::vector<double> kept_flops(nkept, 0.0);
    const int team = nkept * n >= kParallelWork ? threads : 1;
    parallel_tasks(nkept, team, [&](index_t t, int thread) {
      const index_t j = level.kept[t];
      Scalar a1{}, b1{}, a2{}, b2{};
      const Scalar* x1 = nullptr;
      const Scalar* x2 = nullptr;
      if (ls.block_has_work[t]) {
        coupling_coefficients(j, j - 1, sigma, a1, b1);
        x1 = U + (j - 1) * n;
      }
      if (j + 1 < size() && t + 1 < nblocks && ls.block_has_work[t + 1]) {
        coupling_coefficients(j, j + 1, sigma, a2, b2);
        x2 = U + (j + 1) * n;
      }
      if (x1 == nullptr && x2 == nullptr) return;
      rows_.subtract_couplings(a1, b1, x1, a2, b2, x2, F + j * n, ws.threads[thread].rows);
      kept_flops[t] = rows_.couple_flops() * ((x1 != nullptr) + (x2 != nullptr));
    });
    double flops = 0;
    for (double f : kept_flops) flops += f;
    return flops;
  }

  const Factor<Scalar>* factor1_;
  EigenData<Scalar> eigen_;
  Rows rows_;
  std::vector<LevelSchedule> schedule_;
  index_t max_slots_ = 0;
  index_t zero_lane_ = -1;
};

}  // namespace pscr::reference::detail
