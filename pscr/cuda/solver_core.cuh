#pragma once
/// @file The plan of the GPU solver, generic in the executor (engine.cuh): eigen-data, engines,
/// the pivoting monitor, memory sizing and the mean-zero handling of singular problems. The
/// Solver of solver.hpp runs it on the GPU (DeviceExec); the emulation test runs the very same
/// code on the CPU. Include only from .cu files.

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <vector>

#include "common/error.hpp"
#include "eigen_init/eigen_data.hpp"
#include "pscr/cuda/engine.cuh"
#include "pscr/reference/solver.hpp"

namespace pscr::cuda::detail {

/// |λ_zero| ≤ 1e-8 · max |λ| over the top-level block (the CPU backend's test).
template <class Scalar>
bool has_zero_eigenvalue(const Tables<Scalar>& t) {
  const BlockInfo& top = t.blocks[t.at(t.levels).block_begin];
  real_t<Scalar> largest = 0;
  for (index_t l = 0; l < top.m; ++l)
    largest = std::max(largest, std::abs(t.lambda[top.lambda + l]));
  return std::abs(t.lambda[top.lambda + t.zero_lane]) <= 1e-8 * largest;
}

/// @brief The plan (see the file comment). `host_grids`: grid-sized staging buffers per right-hand
/// side that the caller will allocate besides the plan (counted in the memory check).
template <class Scalar, class Exec>
class SolverCore {
 public:
  using T = kernel_t<Scalar>;
  using Tri = TridiagSolve<Scalar, Exec>;
  using Engine2 = Engine<Scalar, Exec, TridiagRowOp<T>, Tri>;
  using Inner = InnerSolve<Scalar, Exec, Engine2>;
  using Engine3 = Engine<Scalar, Exec, GridRowOp<T>, Inner>;

  /// The eigen-data computed on the CPU (eigen_init).
  SolverCore(Exec& exec, const SeparableOperator<Scalar>& op, const SolverOptions& options,
             index_t host_grids)
      : SolverCore(exec, op, reference::compute_plan_eigen_data(op), options, host_grids) {}

  /// Precomputed eigen-data, in the order of reference::compute_plan_eigen_data (checked
  /// against op: InputError when they do not fit).
  SolverCore(Exec& exec, const SeparableOperator<Scalar>& op, std::vector<EigenData<Scalar>> eigen,
             const SolverOptions& options, index_t host_grids)
      : op_(op), options_(options), eigen_(std::move(eigen)) {
    reference::check_plan_eigen_data(op, eigen_, "GPU solver");
    if (options.rhs_per_round < 0)
      PSCR_INPUT_ERROR("GPU solver: rhs_per_round must be >= 0 (0: automatic), got "
                       << options.rhs_per_round);
    if (host_grids < 0) PSCR_INPUT_ERROR("GPU solver: host_grids must be >= 0");
    const int d = op.dimension();
    if (d != 2 && d != 3)
      PSCR_INPUT_ERROR("GPU solver: expected a 2D or 3D operator, found dimension " << d);
    shape_ = op.shape();
    grid_ = op.grid_size();
    N_ = grid_ / shape_[0];
    const auto& f = op.factors();
    if (options.max_refinements < 0 || options.device_refinements < 0 ||
        !(options.refine_tolerance >= 0))
      PSCR_INPUT_ERROR(
          "GPU solver: expected max_refinements >= 0, device_refinements >= 0 and "
          "refine_tolerance >= 0, found "
          << options.max_refinements << ", " << options.device_refinements << " and "
          << options.refine_tolerance);
    e_c_ = to_kernel(op.c());
    factor1_ = std::make_unique<FactorBuffers<Scalar, Exec>>(exec, f[0]);
    const EigenData<Scalar>& eigen1 = eigen_[0];
    if (d == 2) {
      tri_ = std::make_unique<Tri>(exec, f[1], options.pivoting, options.fusion);
      eng2_ = std::make_unique<Engine2>(exec, f[0], eigen1, tri_->row_op(), shape_[1], tri_.get());
    } else {
      tri_ = std::make_unique<Tri>(exec, f[2], options.pivoting, options.fusion);
      eng2_ =
          std::make_unique<Engine2>(exec, f[1], eigen_[1], tri_->row_op(), shape_[2], tri_.get());
      inner_ = std::make_unique<Inner>(eng2_.get());
      factor2_ = std::make_unique<FactorBuffers<Scalar, Exec>>(exec, f[1]);
      eng3_ = std::make_unique<Engine3>(
          exec, f[0], eigen1, GridRowOp<T>{factor2_->op(), tri_->row_op()}, N_, inner_.get());
    }
    detect_singular(exec);
    // Sized before the (possibly long) pivoting monitor, so that a plan that cannot fit fails
    // at once; sized again with the pivoting lists the monitor made.
    choose_round(exec, host_grids);
    run_monitor(exec);
    choose_round(exec, host_grids);
    allocate(exec);
    Problems<T> one = top_problems(1, nullptr, nullptr);
    cost_ = d == 2 ? eng2_->cost(one, pivoted_) : eng3_->cost(one, pivoted_);
  }

  const SeparableOperator<Scalar>& op() const { return op_; }
  /// The eigen-data of the plan: dimension 1, then 2 in 3D.
  const std::vector<EigenData<Scalar>>& eigen_data() const { return eigen_; }
  index_t rhs_per_round() const { return round_; }
  std::size_t bytes() const { return bytes_; }
  bool singular() const { return singular_; }
  index_t grid_size() const { return grid_; }
  /// Flops and traffic of one right-hand side, and its systems solved with pivoting.
  const Cost& cost_per_rhs() const { return cost_; }
  index_t pivoted_per_rhs() const { return pivoted_; }

  /// @brief Solves P ≤ rhs_per_round() grids: u_p = A⁻¹ f_p (u must not overlap f), with
  /// iterative refinement: `check` (host solves): while a grid's relative residual exceeds
  /// refine_tolerance, at most max_refinements steps, the residuals going into `stats`
  /// (synchronous); otherwise device_refinements unconditional steps (asynchronous).
  /// Returns the flops done.
  double solve(Exec& exec, index_t P, const T* f, T* u, bool check, SolveStats* stats) {
    if (P < 1 || P > round_)
      throw SolverError("GPU solver: a round holds 1 to rhs_per_round() right-hand sides");
    const double fs = flop_scale<T>();
    double flops = cost_.flops * P;
    const T* src = f;
    if (singular_) {
      // f̂ = f − μ M e, μ = eᵀ f / eᵀ M e: f projected onto range(A).
      kron_dot(exec, P, z_, f);
      exec.launch(Stage::other, P * shape_[0], N_,
                  KronAxpy<T>{shape(mz_), sums_.data(), e_m_e_, f, grid_, fhat_.data(), grid_});
      src = fhat_.data();
      flops += fs * 4.0 * grid_ * P;
    }
    pscr(exec, P, src, u);
    if (check && options_.max_refinements > 0) {
      flops += refine_checked(exec, P, src, u, *stats);
    } else if (!check) {
      // Device solves: device_refinements steps without looking at the residual.
      for (int step = 0; step < options_.device_refinements; ++step) {
        residual(exec, P, src, u);
        pscr(exec, P, r_.data(), d_.data());
        exec.launch(Stage::refine, P, grid_, AddCorrection<T>{u, d_.data(), nullptr, grid_});
        flops += P * (residual_flops() + cost_.flops + fs * 2.0 * grid_);
      }
    }
    if (singular_) {
      // u −= e (eᵀ M u) / eᵀ M e: the solution of mean zero.
      kron_dot(exec, P, mz_, u);
      exec.launch(Stage::other, P * shape_[0], N_,
                  KronAxpy<T>{shape(z_), sums_.data(), e_m_e_, u, grid_, u, grid_});
      flops += fs * 4.0 * grid_ * P;
    }
    return flops;
  }

  /// @brief Whether the P grids at u are all finite (synchronous: waits for the solve).
  bool finite(Exec& exec, index_t P, const T* u) {
    const int zero = 0;
    exec.upload(flag_.data(), &zero, 1);
    exec.launch(Stage::other, 1, P * grid_, FiniteCheck<T>{u, flag_.data()});
    int flag = 0;
    exec.download(&flag, flag_.data(), 1);
    return flag == 0;
  }

 private:
  /// Kronecker vectors a_d of each dimension on the device (null vectors or M z).
  struct KronVectors {
    std::vector<Buffer<T, Exec>> d;
  };

  KronDotColumns<T> shape(const KronVectors& a) const {
    const bool three = shape_.size() == 3;
    return {a.d[0].data(),
            a.d[1].data(),
            three ? a.d[2].data() : nullptr,
            shape_[0],
            three ? shape_[2] : 1,
            N_,
            nullptr,
            0,
            nullptr};
  }

  /// PSCR proper, without projections: the levels of the top engine.
  void pscr(Exec& exec, index_t P, const T* f, T* u) {
    const Problems<T> pr = top_problems(P, f, u);
    if (eng3_) {
      eng3_->solve(exec, pr);
    } else {
      eng2_->solve(exec, pr);
    }
  }

  /// Flops of one residual: the operator through its Kronecker structure and the subtraction
  /// (the CPU backend's count).
  double residual_flops() const {
    return flop_scale<T>() * (shape_.size() == 2 ? 20.0 : 38.0) * grid_;
  }

  /// Iterative refinement of a host solve, grid by grid the CPU backend's rule
  /// (pscr/reference/solver.cpp): while the relative residual exceeds refine_tolerance and its
  /// rounding floor 32·eps·‖A‖∞‖u‖/‖f‖, at most max_refinements steps u += PSCR(f − A u); a step
  /// that does not lower the residual is undone, one that does not halve it is the last.
  /// Returns the flops done.
  double refine_checked(Exec& exec, index_t P, const T* f, T* u, SolveStats& stats) {
    const double fs = flop_scale<T>();
    double flops = 0;
    std::vector<double> nf, nr, nu, rel(P), next(P);
    norms(exec, P, f, nf);
    auto relative_residuals = [&](std::vector<double>& out) {
      residual(exec, P, f, u);
      flops += P * residual_flops();
      norms(exec, P, r_.data(), nr);
      for (index_t p = 0; p < P; ++p) out[p] = nf[p] > 0 ? nr[p] / nf[p] : nr[p];
    };
    relative_residuals(rel);
    for (index_t p = 0; p < P; ++p)
      stats.initial_residual = std::max(stats.initial_residual, rel[p]);
    std::vector<int> active(P, 1), undo(P, 0);
    for (int step = 0; step < options_.max_refinements; ++step) {
      norms(exec, P, u, nu);
      bool any = false;
      for (index_t p = 0; p < P; ++p) {
        const double floor = op_.residual_rounding_floor(nu[p], nf[p]);
        if (!(rel[p] > options_.refine_tolerance) || !(rel[p] > floor)) active[p] = 0;
        any = any || active[p];
      }
      if (!any) break;
      // u += PSCR(f − A u) for the active grids (r_ holds their residuals).
      exec.upload(mask_.data(), active.data(), P);
      pscr(exec, P, r_.data(), d_.data());
      exec.launch(Stage::refine, P, grid_, AddCorrection<T>{u, d_.data(), mask_.data(), grid_});
      for (index_t p = 0; p < P; ++p)
        if (active[p]) {
          ++stats.refinements;
          flops += cost_.flops + fs * 2.0 * grid_;
        }
      relative_residuals(next);
      bool any_undo = false;
      for (index_t p = 0; p < P; ++p) {
        undo[p] = 0;
        if (!active[p]) continue;
        if (!(next[p] <= rel[p])) {
          undo[p] = -1;  // no gain: back to the previous iterate
          any_undo = true;
          active[p] = 0;
          continue;
        }
        if (next[p] > 0.5 * rel[p]) active[p] = 0;  // stalled: this was the last step
        rel[p] = next[p];
      }
      if (any_undo) {
        exec.upload(mask_.data(), undo.data(), P);
        exec.launch(Stage::refine, P, grid_, AddCorrection<T>{u, d_.data(), mask_.data(), grid_});
      }
    }
    for (index_t p = 0; p < P; ++p) stats.residual = std::max(stats.residual, rel[p]);
    return flops;
  }

  /// r_ = f − A u for P grids (one pass, ResidualStage).
  void residual(Exec& exec, index_t P, const T* f, const T* u) {
    const TridiagRowOp<T> a1 = factor1_->op();
    const T c = e_c_;
    auto run = [&](auto row) {
      exec.launch(Stage::refine, P * shape_[0], N_,
                  ResidualStage<T, decltype(row)>{a1.a_diag, a1.a_off, a1.m_diag, a1.m_off, a1.n, c,
                                                  row, N_, grid_, f, u, r_.data()});
    };
    if (eng3_) {
      run(GridRowOp<T>{factor2_->op(), tri_->row_op()});
    } else {
      run(tri_->row_op());
    }
  }

  /// ‖x_p‖₂ of P grids (synchronous).
  void norms(Exec& exec, index_t P, const T* x, std::vector<double>& out) {
    exec.launch(Stage::refine, P, N_, NormColumns<T>{x, shape_[0], N_, grid_, partial_.data()});
    sum_partials(exec, P, Stage::refine);
    std::vector<Scalar> sums(P);
    exec.download(reinterpret_cast<T*>(sums.data()), sums_.data(), P);
    out.resize(P);
    for (index_t p = 0; p < P; ++p) out[p] = std::sqrt(std::abs(sums[p]));
  }

  /// sums_[p] = Σ_q partial_[p·N + q], deterministic (chunks of kSumWidth, then their sum).
  void sum_partials(Exec& exec, index_t P, Stage stage) {
    const index_t chunks = (N_ + kSumWidth - 1) / kSumWidth;
    exec.launch(stage, P, chunks,
                SumChunks<T>{partial_.data(), N_, kSumWidth, chunks, partial2_.data()});
    exec.launch(stage, P, 1, SumChunks<T>{partial2_.data(), chunks, chunks, 1, sums_.data()});
  }

  /// sums_[p] = (a1 ⊗ a2 [⊗ a3])ᵀ x_p (plain transpose) in three deterministic passes.
  void kron_dot(Exec& exec, index_t P, const KronVectors& a, const T* x) {
    KronDotColumns<T> k = shape(a);
    k.x = x;
    k.x_stride = grid_;
    k.partial = partial_.data();
    exec.launch(Stage::other, P, N_, k);
    sum_partials(exec, P, Stage::other);
  }

  Problems<T> top_problems(index_t P, const T* f, T* u) const {
    Problems<T> pr;
    pr.count = P;
    pr.f = f;
    pr.f_stride = grid_;
    pr.u = u;
    pr.u_stride = grid_;
    pr.sigma = sigma_c_.data();
    if (singular_) pr.singular = {0, 1, P};
    pr.context = 0;
    pr.group = 1;
    return pr;
  }

  /// Pure Neumann with c = 0 (pscr::reference::Solver's rule): every A_d singular and the pencil
  /// of dimension 1 (and 2 in 3D) with a zero eigenvalue.
  void detect_singular(Exec& exec) {
    const auto space = kronecker_null_space(op_);
    if (!space) return;
    if (op_.dimension() == 2) {
      if (!has_zero_eigenvalue(eng2_->tables())) return;
    } else {
      if (!has_zero_eigenvalue(eng3_->tables()) || !has_zero_eigenvalue(eng2_->tables())) return;
    }
    for (int k = 0; k < op_.dimension(); ++k) {
      z_.d.push_back(upload_vector<T>(exec, space->z[k]));
      mz_.d.push_back(upload_vector<T>(exec, space->mz[k]));
    }
    e_m_e_ = to_kernel(space->z_m_z);
    singular_ = true;
  }

  /// Pivoting::automatic: flags, once, every shift whose LU without pivoting is unstable.
  void run_monitor(Exec& exec) {
    const Scalar c = op_.c();
    if (!eng3_) {
      const auto& t = eng2_->tables();
      for (int i = 1; i <= t.levels; ++i)
        tri_->monitor(exec, 0, i, {c}, t.system_eigenvalues(i),
                      singular_ && i == t.levels ? t.zero_lane : -1);
      return;
    }
    const auto& t1 = eng3_->tables();
    const auto& t2 = eng2_->tables();
    for (int i1 = 1; i1 <= t1.levels; ++i1) {
      std::vector<Scalar> sigma = t1.system_eigenvalues(i1);
      for (auto& s : sigma) s = s + c;  // the device's λ + σ (RhsStage), bit for bit
      const bool top1 = singular_ && i1 == t1.levels;
      if (top1) sigma[t1.zero_lane] = Scalar(0);
      for (int i2 = 1; i2 <= t2.levels; ++i2) {
        const bool top2 = top1 && i2 == t2.levels;
        const index_t S2 = t2.at(i2).systems;
        tri_->monitor(exec, i1, i2, sigma, t2.system_eigenvalues(i2),
                      top2 ? t1.zero_lane * S2 + t2.zero_lane : -1);
      }
    }
  }

  /// Device bytes of the plan for R right-hand sides per round (sizes the row solvers).
  std::size_t plan_bytes(Exec& exec, index_t R, index_t host_grids) {
    std::size_t total = sizeof(T) * static_cast<std::size_t>(R);  // sigma_c
    const index_t sing = singular_ ? R : 0;
    std::vector<index_t> batches;
    if (!eng3_) {
      const auto& t = eng2_->tables();
      for (index_t r = 1; r <= R; ++r)
        for (int i = 1; i <= t.levels; ++i) batches.push_back(r * t.at(i).systems);
      total += tri_->plan(exec, batches, R, sing);  // first: the engine asks it what is fused
      total += eng2_->bytes(R);
    } else {
      const auto& t1 = eng3_->tables();
      const auto& t2 = eng2_->tables();
      for (index_t r = 1; r <= R; ++r)
        for (int i1 = 1; i1 <= t1.levels; ++i1)
          for (int i2 = 1; i2 <= t2.levels; ++i2)
            batches.push_back(r * t1.at(i1).systems * t2.at(i2).systems);
      const index_t inner_problems = R * t1.max_systems;
      total += tri_->plan(exec, batches, R, sing);
      total += eng3_->bytes(R) + inner_->bytes(inner_problems, N_) + eng2_->bytes(inner_problems);
    }
    const index_t chunks = (N_ + kSumWidth - 1) / kSumWidth;
    if (singular_ || refines())
      total += sizeof(T) * static_cast<std::size_t>(R * N_ + R * chunks + R);  // reductions
    if (singular_) total += sizeof(T) * static_cast<std::size_t>(R * grid_);   // f̂
    if (refines())
      total += sizeof(T) * static_cast<std::size_t>(2 * R * grid_) + sizeof(int) * R;  // r, d
    total += sizeof(T) * static_cast<std::size_t>(host_grids * R * grid_);
    return total;
  }

  /// The round size: the requested (or automatic) one, lowered until the plan fits in 90% of the
  /// free device memory; SolverError when one right-hand side does not fit.
  void choose_round(Exec& exec, index_t host_grids) {
    index_t R = options_.rhs_per_round;
    if (R == 0) R = std::clamp<index_t>((index_t{1} << 24) / std::max<index_t>(grid_, 1), 1, 16);
    const std::size_t free = exec.free_bytes();
    const double budget = 0.9 * static_cast<double>(free);
    std::size_t need = plan_bytes(exec, R, host_grids);
    while (R > 1 && static_cast<double>(need) > budget) {
      R = std::max<index_t>(1, R / 2);
      need = plan_bytes(exec, R, host_grids);
    }
    if (static_cast<double>(need) > budget) {
      std::ostringstream msg;
      msg << "GPU solver: the plan for a grid of " << grid_ << " unknowns needs "
          << static_cast<double>(need) / (1 << 20) << " MiB of device memory (one right-hand "
          << "side per round), but only " << static_cast<double>(free) / (1 << 20)
          << " MiB are free (90% usable); use the CPU backend or a smaller problem";
      throw SolverError(msg.str());
    }
    round_ = R;
    bytes_ = need;
  }

  void allocate(Exec& exec) {
    const index_t R = round_;
    sigma_c_ = upload_vector<T>(exec, std::vector<Scalar>(R, op_.c()));
    if (!eng3_) {
      eng2_->allocate(R);
    } else {
      const index_t inner_problems = R * eng3_->tables().max_systems;
      eng3_->allocate(R);
      inner_->allocate(inner_problems, N_);
      eng2_->allocate(inner_problems);
    }
    tri_->allocate(exec);
    flag_ = Buffer<int, Exec>(1);
    if (singular_ || refines()) {
      const index_t chunks = (N_ + kSumWidth - 1) / kSumWidth;
      partial_ = Buffer<T, Exec>(R * N_);
      partial2_ = Buffer<T, Exec>(R * chunks);
      sums_ = Buffer<T, Exec>(R);
    }
    if (singular_) fhat_ = Buffer<T, Exec>(R * grid_);
    if (refines()) {
      r_ = Buffer<T, Exec>(R * grid_);
      d_ = Buffer<T, Exec>(R * grid_);
      mask_ = Buffer<int, Exec>(R);
    }
  }

  static constexpr index_t kSumWidth = 1024;

  bool refines() const { return options_.max_refinements > 0 || options_.device_refinements > 0; }

  SeparableOperator<Scalar> op_;
  SolverOptions options_;
  std::vector<EigenData<Scalar>> eigen_;  ///< host copy, dimension 1 (, 2): for eigen_data()
  std::vector<index_t> shape_;
  index_t grid_ = 0;
  index_t N_ = 0;                                         ///< grid / n1
  T e_c_ = T(0);                                          ///< c
  std::unique_ptr<FactorBuffers<Scalar, Exec>> factor1_;  ///< (A1, M1), for the residual
  std::unique_ptr<Tri> tri_;
  std::unique_ptr<Engine2> eng2_;  ///< 2D: the solver; 3D: the inner 2D problems
  std::unique_ptr<Inner> inner_;
  std::unique_ptr<FactorBuffers<Scalar, Exec>> factor2_;
  std::unique_ptr<Engine3> eng3_;
  index_t round_ = 1;
  std::size_t bytes_ = 0;
  Cost cost_;
  index_t pivoted_ = 0;
  Buffer<T, Exec> sigma_c_;
  Buffer<int, Exec> flag_;
  Buffer<T, Exec> partial_, partial2_, sums_;  ///< reductions (norms, Kronecker dots)
  Buffer<T, Exec> r_, d_;                      ///< refinement: residual and correction
  Buffer<int, Exec> mask_;                     ///< refinement: grids that take the step
  // Singular problems.
  bool singular_ = false;
  KronVectors z_, mz_;
  T e_m_e_ = T(1);
  Buffer<T, Exec> fhat_;
};

}  // namespace pscr::cuda::detail
