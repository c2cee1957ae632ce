#pragma once
/// @file The radix-4 PSCR level driver of the GPU backend (DESIGN.md §2, myllykoski2018 §3–4),
/// generic in what a row is and how its shifted systems are solved, and in the executor that runs
/// the stages. Include only from .cu files.
///
/// An Engine solves, for P problems at once,
///   (A1⊗Mrow + M1⊗Krow + σ_p M1⊗Mrow) u_p = f_p,
/// in dimension 1 of its own (A1, M1), rows of length N:
///   2D:            Mrow = M2, Krow = A2 (TridiagRowOp), shifted systems tridiagonal
///   (TridiagSolve); 3D, outer:     Mrow = M2⊗M3, Krow = A2⊗M3 + M2⊗A3 (GridRowOp), each shifted
///   system a 2D
///                  problem with σ = c + λ_l, all of a stage solved by one batched inner Engine
///                  (InnerSolve);
///   3D, inner:     the 2D case in dimensions (2, 3), P = the outer stage's systems.
/// Per level, every stage is one launch over all problems, blocks and eigenvalues: RhsStage, the
/// row solve, SumStage (and CombineStage for split blocks), and UpdateStage in the reduction;
/// with tridiagonal rows the first three are one FusedStage (fused.cuh) or one segment stage
/// (segment_stage.cuh) where it applies.
///
/// Storage of f^(i) and of the partial solutions v. f is only read. The reduced right-hand sides
/// f^(i+1)_j live in u_j (j ∈ J_i ⊂ J_1) and the partial solutions v in u's rows next to kept rows,
/// which are never in J_1 (for i ≥ 2, j ± 1 ≡ ±1 mod 4^i is not ≡ −1 mod 4): the reduction writes
/// only u. Back substitution reads f^(i) from u (f at level 1) before it writes u's rows of the
/// same blocks, in a later launch, so u is the only work array of a problem and must not overlap
/// f.
///
/// Executor concept (DeviceExec below; the emulation test has a CPU one):
///   template <class T> using Buffer = …;           // data(), size(); Buffer<T>(count)
///   template <class F> void launch(Stage, index_t rows, index_t cols, const F& f);
///   template <class T> void launch_blocks(Stage, index_t blocks, int threads,
///        std::size_t smem_bytes, const FusedStage<T>& f);  // f.run(block, id, shared memory)
///   std::size_t shared_limit();                            // largest shared memory of a block
///   template <class T> void upload(T* dst, const T* src, index_t count);    // synchronous
///   template <class T> void download(T* dst, const T* src, index_t count);  // synchronous
///   template <class T> index_t tridiag_workspace(index_t n, index_t batch, bool pivoting);
///   static constexpr bool kSegmentStage;   // whether it runs the segment stage (GPU only):
///   template <class T> index_t segment_stage_workspace(index_t n, index_t batch);
///   template <class T> void segment_stage(const SegmentStage<T>& s, T* ws, index_t wc);
///   template <class T> void tridiag(const TridiagRowOp<T>& am, index_t n, const T* shifts,
///        index_t batch, T* x, tridiag::BatchLayout layout, bool pivoting, T* ws, index_t wc);
///        // (A + s_k M) x_k = x_k in place, A, M the leading n rows of am
///   std::size_t free_bytes();

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "common/error.hpp"
#include "eigen_init/eigen_data.hpp"
#include "pscr/cuda/fused.cuh"
#include "pscr/cuda/kernels.cuh"
#include "pscr/cuda/segment_stage.cuh"
#include "pscr/cuda/solver.hpp"
#include "pscr/cuda/stage_fusion.hpp"
#include "pscr/cuda/tables.hpp"
#include "pscr/operator.hpp"
#include "tridiag/layout.hpp"

namespace pscr::cuda::detail {

/// @brief The kinds of stages, for the per-stage times (StageTimes).
enum class Stage { rhs, tridiag, sum, update, fused, refine, other };

/// @brief The host scalar of a kernel scalar (the inverse of kernel_t).
template <class T>
struct host_scalar {
  using type = T;
};
template <>
struct host_scalar<Complex> {
  using type = std::complex<double>;
};
template <class T>
using host_scalar_t = typename host_scalar<T>::type;

/// @brief A host scalar as the kernel scalar (same bytes).
template <class Scalar>
kernel_t<Scalar> to_kernel(const Scalar& s) {
  static_assert(sizeof(kernel_t<Scalar>) == sizeof(Scalar));
  kernel_t<Scalar> t;
  std::memcpy(static_cast<void*>(&t), &s, sizeof t);
  return t;
}

/// Real flops of one operation of T (a complex one counts as 4, as in the CPU backend).
template <class T>
constexpr double flop_scale() {
  return std::is_floating_point_v<T> ? 1.0 : 4.0;
}

/// @brief Device memory traffic (floor) and real flops.
struct Cost {
  double flops = 0;
  double bytes = 0;
  Cost& operator+=(const Cost& o) {
    flops += o.flops;
    bytes += o.bytes;
    return *this;
  }
};

/// @brief The problems of one Engine::solve call.
template <class T>
struct Problems {
  index_t count = 0;  ///< P
  const T* f = nullptr;
  index_t f_stride = 0;
  T* u = nullptr;
  index_t u_stride = 0;
  const T* sigma = nullptr;  ///< P shifts σ_p (device)
  Progression singular;      ///< problems whose operator is singular (zero lane at the top level)
  index_t context = 0;       ///< which pivoting lists apply (the outer level of a 3D inner solve)
  index_t group = 1;         ///< problems per group of the pivoting lists (count is a multiple)
};

/// @brief One stage's shifted systems, as the Engine hands them to its row solver.
template <class T>
struct RowStage {
  int level = 1;
  int top = 0;  ///< top level of back substitution (where a singular problem's zero lane is)
  index_t problems = 0;
  index_t systems = 0;  ///< S: systems per problem
  index_t N = 0;
  T* X = nullptr;  ///< right-hand sides (Engine's layout), may be overwritten
  const T* shifts = nullptr;
  Progression singular;
  index_t zero_lane = 0;
  index_t context = 0;
  index_t group = 1;
};

template <class T, class Exec>
using Buffer = typename Exec::template Buffer<T>;

/// Uploads a host vector into a new buffer (at least one element, so pointers are never null).
template <class T, class Exec, class V>
Buffer<T, Exec> upload_vector(Exec& exec, const std::vector<V>& v) {
  static_assert(sizeof(T) == sizeof(V), "layout-compatible element types");
  Buffer<T, Exec> b(std::max<std::size_t>(v.size(), 1));
  if (!v.empty())
    exec.upload(b.data(), reinterpret_cast<const T*>(v.data()), static_cast<index_t>(v.size()));
  return b;
}

/// @brief A symmetric tridiagonal pair (A, M) resident in the executor's memory.
template <class Scalar, class Exec>
class FactorBuffers {
 public:
  using T = kernel_t<Scalar>;
  FactorBuffers(Exec& exec, const Factor<Scalar>& f)
      : a_diag_(upload_vector<T>(exec, f.A.diag)),
        a_off_(upload_vector<T>(exec, f.A.off)),
        m_diag_(upload_vector<T>(exec, f.M.diag)),
        m_off_(upload_vector<T>(exec, f.M.off)),
        n_(f.size()) {}
  TridiagRowOp<T> op() const {
    return {a_diag_.data(), a_off_.data(), m_diag_.data(), m_off_.data(), n_};
  }
  index_t size() const { return n_; }

 private:
  Buffer<T, Exec> a_diag_, a_off_, m_diag_, m_off_;
  index_t n_;
};

/// Eigenvalues per chunk (tables.hpp): blocks of up to 63 eigenvalues (levels 1–3) are never
/// split.
inline constexpr index_t kChunkLanes = 64;

/// @brief How a stage's right-hand sides, row solves and sums run: as separate launches, as one
/// FusedStage (fused.cuh, short systems in shared memory) or as the segment stage
/// (segment_stage.cuh, long systems in registers).
enum class Fusion { none, block, segment };

/// @brief Level 3: the shifted tridiagonal systems (Krow + s Mrow) y = x of a stage, in place in X,
/// through the executor (tridiag::cuda on the GPU). With Pivoting::automatic, the systems flagged
/// by the plan-time monitor (MonitorStage) are gathered before the batched solve, solved with
/// pivoting and scattered back over the unpivoted results. A singular problem's zero lane at the
/// top level (A singular, shift 0) gets the CPU backend's particular solution: the leading n − 1
/// rows solved, the last row 0.
template <class Scalar, class Exec>
class TridiagSolve {
 public:
  using T = kernel_t<Scalar>;
  static constexpr double kGrowthLimit = 100.0;  ///< the CPU backend's TridiagRows::kGrowthLimit

  /// The fused stages (fused.cuh, segment_stage.cuh) can take this solver's stages.
  static constexpr bool kCanFuse = true;

  TridiagSolve(Exec& exec, const Factor<Scalar>& factor, Pivoting pivoting, StageFusion fusion)
      : factors_(exec, factor), pivoting_(pivoting) {
    const index_t n = factor.size();
    if (fusion == StageFusion::never || pivoting == Pivoting::always) return;
    if (n <= kFusedMaxN &&
        FusedShape::make(n, kChunkLanes).smem_elems * sizeof(T) <= exec.shared_limit()) {
      if (fusion == StageFusion::always || block_stage_pays(n, is_complex_v<Scalar>))
        fusion_ = Fusion::block;
    } else if constexpr (Exec::kSegmentStage) {
      if (n >= kSegmentStageMinN &&
          (fusion == StageFusion::always ||
           segment_stage_pays(n, tridiag::cuda::current_selection_gpu(), is_complex_v<Scalar>)))
        fusion_ = Fusion::segment;
    }
  }

  /// How this stage runs: fused (the solver's kind of fusion) when no system is to be pivoted and
  /// no lane is singular, else separately.
  Fusion fusion(const RowStage<T>& st) const {
    if (fusion_ == Fusion::none || (st.top && st.singular.count > 0)) return Fusion::none;
    return pivoting_ == Pivoting::never || find(st) == nullptr ? fusion_ : Fusion::none;
  }

  /// Runs the segment stage of one level (fusion() == Fusion::segment).
  void segment_stage(Exec& exec, const LevelArgs<T, TridiagRowOp<T>>& a, index_t problems, T* slots,
                     index_t nslots) {
    if constexpr (Exec::kSegmentStage) {
      SegmentStage<T> s{};  // the walk and the coarse arrays: filled in by the executor
      s.a = a;
      s.problems = problems;
      s.segments = segment_stage_segments<T>(size());
      s.slots = slots;
      s.nslots = nslots;
      exec.segment_stage(s, ws_.data(), ws_count_);
    } else {
      throw SolverError("GPU solver: this executor has no segment stage");
    }
  }

  index_t size() const { return factors_.size(); }
  /// Eigenvalues per chunk of the engine that uses this solver: fewer for the segment stage, whose
  /// warps take a chunk's eigenvalues one after another (more chunks, more warps at work).
  index_t chunk_lanes() const {
    return fusion_ == Fusion::segment ? kSegmentStageChunkLanes : kChunkLanes;
  }
  /// (Krow, Mrow) = (A, M) of the tridiagonal dimension, for the couplings of the rows.
  TridiagRowOp<T> row_op() const { return factors_.op(); }

  /// @brief Runs the monitor for context `context` and level `level`: G shifts σ_g (host) plus the
  /// level's eigenvalues λ_s; systems g·S + s that fail are solved with pivoting. `skip`
  /// (g·S + s, or −1) is a singular lane handled apart.
  void monitor(Exec& exec, index_t context, int level, const std::vector<Scalar>& sigma,
               const std::vector<Scalar>& lambda, index_t skip) {
    if (static_cast<index_t>(lists_.size()) <= context) lists_.resize(context + 1);
    auto& per_level = lists_[context];
    if (static_cast<int>(per_level.size()) < level) per_level.resize(level);
    if (pivoting_ != Pivoting::automatic) return;
    const index_t G = static_cast<index_t>(sigma.size());
    const index_t S = static_cast<index_t>(lambda.size());
    auto d_sigma = upload_vector<T>(exec, sigma);
    auto d_lambda = upload_vector<T>(exec, lambda);
    Buffer<unsigned char, Exec> d_flags(static_cast<std::size_t>(G * S));
    const TridiagRowOp<T> am = factors_.op();
    exec.launch(Stage::other, G, S,
                MonitorStage<T>{am.a_diag, am.a_off, am.m_diag, am.m_off, am.n, d_sigma.data(),
                                d_lambda.data(), S, kGrowthLimit, d_flags.data()});
    std::vector<unsigned char> flags(G * S);
    exec.download(flags.data(), d_flags.data(), G * S);
    std::vector<index_t> list;
    for (index_t k = 0; k < G * S; ++k)
      if (flags[k] != 0 && k != skip) list.push_back(k);
    List& entry = per_level[level - 1];
    entry.count = static_cast<index_t>(list.size());
    entry.systems = list;
    if (!list.empty())
      entry.d_list = std::make_unique<Buffer<index_t, Exec>>(upload_vector<index_t>(exec, list));
    max_list_ = std::max(max_list_, entry.count);
  }

  /// @brief Sizes the work arrays (allocated by allocate()) for stages of `batches` systems (every
  /// batch size a solve may use), up to `groups` groups of the pivoting lists and `singular`
  /// singular lanes per call; returns their bytes. Call after every monitor().
  std::size_t plan(Exec& exec, const std::vector<index_t>& batches, index_t groups,
                   index_t singular) {
    const index_t n = size();
    every_stage_fused_ = fusion_ != Fusion::none && max_list_ == 0 && singular == 0;
    ws_count_ = 0;
    for (index_t b : batches) {
      if (b < 1) continue;
      if (!every_stage_fused_)
        ws_count_ = std::max(
            ws_count_, exec.template tridiag_workspace<T>(n, b, pivoting_ == Pivoting::always));
      if constexpr (Exec::kSegmentStage)
        if (fusion_ == Fusion::segment)
          ws_count_ = std::max(ws_count_, exec.template segment_stage_workspace<T>(n, b));
    }
    if (max_list_ > 0)
      ws_count_ =
          std::max(ws_count_, exec.template tridiag_workspace<T>(n, groups * max_list_, true));
    if (singular > 0 && n > 1)
      ws_count_ = std::max(ws_count_, exec.template tridiag_workspace<T>(n - 1, singular, false));
    z_count_ = groups * max_list_;
    s_count_ = singular;
    return sizeof(T) * static_cast<std::size_t>(std::max<index_t>(ws_count_, 1) +
                                                z_count_ * (n + 1) + s_count_ * (n + 1) + 2);
  }

  /// Whether every stage of a solve runs fused (fusion() is never Fusion::none): no pivoting
  /// lists, no singular lanes. Set by plan(); the engines then keep no systems array.
  bool every_stage_fused() const { return every_stage_fused_; }

  void allocate(Exec& exec) {
    const index_t n = size();
    ws_ = Buffer<T, Exec>(std::max<index_t>(ws_count_, 1));
    z_ = Buffer<T, Exec>(std::max<index_t>(z_count_ * n, 1));
    z_shifts_ = Buffer<T, Exec>(std::max<index_t>(z_count_, 1));
    s_ = Buffer<T, Exec>(std::max<index_t>(s_count_ * n, 1));
    zeros_ = upload_vector<T>(exec, std::vector<Scalar>(std::max<index_t>(s_count_, 1), Scalar(0)));
  }

  /// Systems solved with pivoting by one stage.
  index_t pivoted(const RowStage<T>& st) const {
    if (pivoting_ == Pivoting::always) return st.problems * st.systems;
    const List* list = find(st);
    return list == nullptr ? 0 : list->count * (st.problems / st.group);
  }

  Cost cost(const RowStage<T>& st) const {
    // Thomas with the matrix formed on the fly (the CPU backend's count per row), d read, x
    // written.
    const double rows = static_cast<double>(st.problems * st.systems * size());
    const double per_row = std::is_floating_point_v<T> ? 12.0 : 58.0;
    return {per_row * rows, 2.0 * sizeof(T) * rows};
  }

  /// Solves the stage's systems in place; returns where the solutions are (X).
  const T* solve(Exec& exec, const RowStage<T>& st) {
    const index_t n = size();
    const index_t batch = st.problems * st.systems;
    const TridiagRowOp<T> am = factors_.op();
    const auto layout = tridiag::BatchLayout::contiguous(n);
    Progression sing;
    if (st.top && st.singular.count > 0)
      sing = {st.singular.first * st.systems + st.zero_lane, st.singular.stride * st.systems,
              st.singular.count};
    if (sing.count > s_count_)
      throw SolverError("GPU solver: more singular lanes than the plan holds");
    if (sing.count > 0)
      exec.launch(Stage::other, sing.count, n, ProgressionCopy<T>{st.X, s_.data(), sing, n, 1});
    const List* list = pivoting_ == Pivoting::automatic ? find(st) : nullptr;
    const index_t groups = st.problems / st.group;
    const index_t nz = list != nullptr ? groups * list->count : 0;
    if (nz > z_count_) throw SolverError("GPU solver: more pivoted systems than the plan holds");
    if (nz > 0)
      exec.launch(Stage::other, nz, n,
                  GatherStage<T>{st.X, st.shifts, z_.data(), z_shifts_.data(), list->d_list->data(),
                                 list->count, st.group * st.systems, n, 1});
    exec.tridiag(am, n, st.shifts, batch, st.X, layout, pivoting_ == Pivoting::always, ws_.data(),
                 ws_count_);
    if (nz > 0) {
      exec.tridiag(am, n, z_shifts_.data(), nz, z_.data(), layout, true, ws_.data(), ws_count_);
      exec.launch(Stage::other, nz, n,
                  GatherStage<T>{st.X, st.shifts, z_.data(), z_shifts_.data(), list->d_list->data(),
                                 list->count, st.group * st.systems, n, 0});
    }
    if (sing.count > 0) {
      if (n > 1)
        exec.tridiag(am, n - 1, zeros_.data(), sing.count, s_.data(), layout, false, ws_.data(),
                     ws_count_);
      exec.launch(Stage::other, sing.count, n, SingularFinish<T>{st.X, s_.data(), sing, n});
    }
    return st.X;
  }

 private:
  struct List {
    index_t count = 0;
    std::vector<index_t> systems;
    std::unique_ptr<Buffer<index_t, Exec>> d_list;
  };
  const List* find(const RowStage<T>& st) const {
    if (st.context >= static_cast<index_t>(lists_.size())) return nullptr;
    const auto& per_level = lists_[st.context];
    if (st.level > static_cast<int>(per_level.size())) return nullptr;
    const List& l = per_level[st.level - 1];
    return l.count > 0 ? &l : nullptr;
  }

  FactorBuffers<Scalar, Exec> factors_;
  Pivoting pivoting_;
  Fusion fusion_ = Fusion::none;
  bool every_stage_fused_ = false;
  std::vector<std::vector<List>> lists_;  ///< [context][level − 1]
  index_t max_list_ = 0;
  index_t ws_count_ = 0, z_count_ = 0, s_count_ = 0;
  Buffer<T, Exec> ws_, z_, z_shifts_, s_, zeros_;
};

/// @brief The PSCR level driver (see the file comment).
template <class Scalar, class Exec, class RowOp, class RowSolver>
class Engine {
 public:
  using T = kernel_t<Scalar>;
  /// @param factor1  (A1, M1) of this engine's dimension (couplings); eigen its eigen-data
  /// @param row      Mrow, Krow of the rows; N the row length
  /// @param solver   solves the shifted systems of a stage (must outlive the engine)
  Engine(Exec& exec, const Factor<Scalar>& factor1, const EigenData<Scalar>& eigen, RowOp row,
         index_t N, RowSolver* solver)
      : tables_(build_tables(eigen, solver->chunk_lanes())),
        blocks_(upload_vector<BlockInfo>(exec, tables_.blocks)),
        chunks_(upload_vector<ChunkInfo>(exec, tables_.chunks)),
        kept_(upload_vector<KeptInfo>(exec, tables_.kept)),
        splits_(upload_vector<SplitInfo>(exec, tables_.splits)),
        lambda_(upload_vector<T>(exec, tables_.lambda)),
        W_(upload_vector<T>(exec, tables_.W)),
        a1_off_(upload_vector<T>(exec, factor1.A.off)),
        m1_off_(upload_vector<T>(exec, factor1.M.off)),
        row_(row),
        N_(N),
        solver_(solver) {
    for (const LevelInfo& lv : tables_.level) {
      index_t lanes = 1;
      for (index_t k = 0; k < lv.chunk_count; ++k) {
        const ChunkInfo& c = tables_.chunks[lv.chunk_begin + k];
        lanes = std::max(lanes, c.l_end - c.l_begin);
      }
      lanes_.push_back(lanes);
    }
  }

  const Tables<Scalar>& tables() const { return tables_; }
  int levels() const { return tables_.levels; }
  index_t zero_lane() const { return tables_.zero_lane; }

  /// @brief Bytes of the work arrays for up to `problems` problems per solve (after the row
  /// solver's plan: the systems array X and its shifts only where a stage runs separately).
  std::size_t bytes(index_t problems) const {
    const index_t systems = separate_stages() ? problems * tables_.max_systems : 0;
    return sizeof(T) *
           static_cast<std::size_t>(systems * N_ + systems +
                                    problems * tables_.max_slots * kMaxOutputs * N_ + 3);
  }

  void allocate(index_t problems) {
    max_problems_ = problems;
    const index_t systems = separate_stages() ? problems * tables_.max_systems : 0;
    X_ = Buffer<T, Exec>(std::max<index_t>(systems * N_, 1));
    shifts_ = Buffer<T, Exec>(std::max<index_t>(systems, 1));
    slots_ = Buffer<T, Exec>(std::max<index_t>(problems * tables_.max_slots * kMaxOutputs * N_, 1));
  }

  /// @brief Solves pr.count problems (≤ the allocated count): reduction, then back substitution,
  /// eqs. (13)–(16), myllykoski2018.
  void solve(Exec& exec, const Problems<T>& pr) {
    if (pr.count > max_problems_)
      throw SolverError("GPU solver: more problems than the plan was sized for");
    const int k = levels();
    for (int i = 1; i < k; ++i) {
      stage(exec, pr, i, false);
      update(exec, pr, i);
    }
    for (int i = k; i >= 1; --i) stage(exec, pr, i, true);
  }

  /// @brief Flops and traffic of one solve of `problems` problems (row solves included), and the
  /// systems solved with pivoting.
  Cost cost(const Problems<T>& pr, index_t& pivoted) const {
    Cost total;
    const int k = levels();
    const double P = static_cast<double>(pr.count);
    const double fs = flop_scale<T>();
    const double N = static_cast<double>(N_);
    const double sz = sizeof(T);
    for (int i = 1; i <= k; ++i) {
      const LevelInfo& lv = tables_.at(i);
      for (int back = 0; back <= 1; ++back) {
        if (i == k && !back) continue;
        double src_rows = 0, terms = 0, sum_terms = 0, outs = 0, couplings = 0;
        for (index_t b = 0; b < lv.block_count; ++b) {
          const BlockInfo& blk = tables_.blocks[lv.block_begin + b];
          const int c = back ? blk.has_left + blk.has_right : 0;
          src_rows += blk.ninner + c;
          couplings += c;
          terms += static_cast<double>(blk.m) * (blk.ninner + c);
          const int nout = back ? blk.ninner : blk.nred;
          outs += nout;
          sum_terms += static_cast<double>(blk.m) * nout;
        }
        const double S = static_cast<double>(lv.systems);
        RowStage<T> st = row_stage(pr, i, back);
        Fusion fusion = Fusion::none;
        if constexpr (RowSolver::kCanFuse) fusion = solver_->fusion(st);
        const Cost row_cost = solver_->cost(st);
        // rhs: sources read, systems written; row solves; sum: systems read, outputs written.
        // Fused: only the sources read and the outputs written; the segment stage reads the
        // sources in both passes and moves 4 + 1 + 1 coarse values per segment and system
        // (written, read by the coarse solve, its solution read back).
        const double slot_rows = 2.0 * kMaxOutputs * lv.slots;
        total.flops += fs * P * N * (2.0 * terms - S + couplings * RowOp::apply_flops) +
                       fs * P * N * 2.0 * sum_terms + row_cost.flops;
        if (fusion == Fusion::block) {
          total.bytes += sz * P * N * (src_rows + outs + slot_rows);
        } else if (fusion == Fusion::segment) {
          const double coarse = 2.0 * static_cast<double>(segment_stage_segments<T>(N_));
          total.bytes += sz * P * (N * (2.0 * src_rows + outs + slot_rows) + 10.0 * coarse * S);
        } else {
          total.bytes += sz * P * N * (src_rows + 2.0 * S + outs + slot_rows) + row_cost.bytes;
        }
        pivoted += solver_->pivoted(st);
        if (!back) {
          const double kept = static_cast<double>(lv.kept_count);
          total += {fs * P * N * kept * 2.0 * RowOp::apply_flops, sz * P * N * kept * 4.0};
        }
      }
    }
    return total;
  }

 private:
  /// Whether some stage runs separately (right-hand sides, row solves and sums through X).
  bool separate_stages() const {
    if constexpr (RowSolver::kCanFuse) return !solver_->every_stage_fused();
    return true;
  }

  LevelArgs<T, RowOp> args(const Problems<T>& pr, int i, bool back) const {
    const LevelInfo& lv = tables_.at(i);
    return {blocks_.data() + lv.block_begin,
            chunks_.data() + lv.chunk_begin,
            lv.chunk_count,
            lambda_.data(),
            W_.data(),
            a1_off_.data(),
            m1_off_.data(),
            row_,
            N_,
            lv.systems,
            pr.f,
            pr.f_stride,
            pr.u,
            pr.u_stride,
            pr.sigma,
            i == 1 ? 1 : 0,
            back ? 1 : 0};
  }

  RowStage<T> row_stage(const Problems<T>& pr, int i, bool back) const {
    RowStage<T> st;
    st.level = i;
    st.top = back && i == levels() ? 1 : 0;
    st.problems = pr.count;
    st.systems = tables_.at(i).systems;
    st.N = N_;
    st.X = const_cast<T*>(X_.data());
    st.shifts = shifts_.data();
    st.singular = pr.singular;
    st.zero_lane = tables_.zero_lane;
    st.context = pr.context;
    st.group = pr.group;
    return st;
  }

  /// One level of the reduction (back = false, eqs. 24 and 26) or of back substitution (back =
  /// true, eqs. 27–28): right-hand sides, row solves, weighted sums.
  void stage(Exec& exec, const Problems<T>& pr, int i, bool back) {
    const LevelInfo& lv = tables_.at(i);
    const LevelArgs<T, RowOp> a = args(pr, i, back);
    const RowStage<T> st = row_stage(pr, i, back);
    if constexpr (RowSolver::kCanFuse) {
      const Fusion fusion = solver_->fusion(st);
      if (fusion == Fusion::block) {
        const FusedShape shape = FusedShape::make(N_, lanes_[i - 1]);
        exec.launch_blocks(Stage::fused, pr.count * lv.chunk_count, shape.threads,
                           shape.smem_elems * sizeof(T),
                           FusedStage<T>{a, slots_.data(), lv.slots, shape});
      } else if (fusion == Fusion::segment) {
        solver_->segment_stage(exec, a, pr.count, slots_.data(), lv.slots);
      }
      if (fusion != Fusion::none) {
        combine(exec, pr, a, lv);
        return;
      }
    }
    if (!separate_stages())
      throw SolverError(
          "GPU solver: a stage runs separately, but the plan has no systems array "
          "for it (internal error)");
    exec.launch(
        Stage::rhs, pr.count * lv.chunk_count, N_,
        RhsStage<T, RowOp>{a, X_.data(), shifts_.data(), pr.singular, st.top, tables_.zero_lane});
    const T* Y = solver_->solve(exec, st);
    exec.launch(Stage::sum, pr.count * lv.chunk_count, N_,
                SumStage<T, RowOp>{a, Y, slots_.data(), lv.slots});
    combine(exec, pr, a, lv);
  }

  /// lx_stage_y2b: the slots of split blocks added into u.
  void combine(Exec& exec, const Problems<T>& pr, const LevelArgs<T, RowOp>& a,
               const LevelInfo& lv) {
    if (lv.split_count > 0)
      exec.launch(Stage::sum, pr.count * lv.split_count, N_,
                  CombineStage<T, RowOp>{a, splits_.data() + lv.split_begin, lv.split_count,
                                         slots_.data(), lv.slots});
  }

  /// f^(i+1) on J_i, eq. (24).
  void update(Exec& exec, const Problems<T>& pr, int i) {
    const LevelInfo& lv = tables_.at(i);
    exec.launch(
        Stage::update, pr.count * lv.kept_count, N_,
        UpdateStage<T, RowOp>{args(pr, i, false), kept_.data() + lv.kept_begin, lv.kept_count});
  }

  Tables<Scalar> tables_;
  Buffer<BlockInfo, Exec> blocks_;
  Buffer<ChunkInfo, Exec> chunks_;
  Buffer<KeptInfo, Exec> kept_;
  Buffer<SplitInfo, Exec> splits_;
  Buffer<T, Exec> lambda_, W_, a1_off_, m1_off_;
  RowOp row_;
  index_t N_;
  RowSolver* solver_;
  std::vector<index_t> lanes_;  ///< most eigenvalues of a chunk, per level
  index_t max_problems_ = 0;
  Buffer<T, Exec> X_, shifts_, slots_;
};

/// @brief The outer level of 3D: each shifted system of a stage is a 2D problem
/// A2⊗M3 + M2⊗A3 + σ M2⊗M3 with σ = λ_l + c (the stage's shift), all solved by one call of the
/// inner Engine; solutions go to Y (laid out as X).
template <class Scalar, class Exec, class Inner>
class InnerSolve {
 public:
  using T = kernel_t<Scalar>;
  static constexpr bool kCanFuse = false;
  explicit InnerSolve(Inner* inner) : inner_(inner) {}
  index_t chunk_lanes() const { return kChunkLanes; }

  std::size_t bytes(index_t systems_per_call, index_t N) const {
    return sizeof(T) * static_cast<std::size_t>(systems_per_call * N + 1);
  }
  void allocate(index_t systems_per_call, index_t N) {
    Y_ = Buffer<T, Exec>(std::max<index_t>(systems_per_call * N, 1));
  }

  Problems<T> problems(const RowStage<T>& st) const {
    Problems<T> pr;
    pr.count = st.problems * st.systems;
    pr.f = st.X;
    pr.f_stride = st.N;
    pr.u = const_cast<T*>(Y_.data());
    pr.u_stride = st.N;
    pr.sigma = st.shifts;
    if (st.top && st.singular.count > 0)
      pr.singular = {st.singular.first * st.systems + st.zero_lane, st.singular.stride * st.systems,
                     st.singular.count};
    pr.context = st.level;
    pr.group = st.systems;
    return pr;
  }

  index_t pivoted(const RowStage<T>& st) const {
    index_t p = 0;
    inner_->cost(problems(st), p);
    return p;
  }
  Cost cost(const RowStage<T>& st) const {
    index_t p = 0;
    return inner_->cost(problems(st), p);
  }

  const T* solve(Exec& exec, const RowStage<T>& st) {
    inner_->solve(exec, problems(st));
    return Y_.data();
  }

 private:
  Inner* inner_;
  Buffer<T, Exec> Y_;
};

}  // namespace pscr::cuda::detail
