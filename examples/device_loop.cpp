// A simulation that keeps its data on the GPU and calls the PSCR solver every time step: the heat
// equation u_t = Δu on a non-uniform mesh, backward Euler,
//   (A1⊗M2 + M1⊗A2 + (1/Δt) M1⊗M2) u^{n+1} = (1/Δt) (M1⊗M2) u^n     (3D: ⊗ M3 likewise),
// with piecewise-linear elements (problems::poisson_factor). The plan is built once; every step
// forms its right-hand side on the device (pscr::cuda::DeviceOperator of the mass term), solves
// it from device pointers on the program's own stream, and checks the residual with the
// operator's DeviceOperator. Nothing is allocated in the loop (the free device memory is the same
// before and after), and nothing crosses to the host except the residual checks.
//
// Usage: device_loop [2d|3d] [steps]   (default 2d, 20 steps; --help prints this)
// Exit code: 0 passed, 1 failed, 2 bad arguments, 77 no CUDA device.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/error.hpp"
#include "problems/generate.hpp"
#include "pscr/cuda/operator.hpp"
#include "pscr/cuda/solver.hpp"

namespace {

using pscr::index_t;

/// ‖A u − f‖₂ / ‖f‖₂ from device arrays (Au already applied), computed on the host.
double relative_residual(const pscr::cuda::DeviceBuffer<double>& d_au,
                         const pscr::cuda::DeviceBuffer<double>& d_f) {
  std::vector<double> au(d_au.size()), f(d_f.size());
  d_au.copy_to_host(au.data());
  d_f.copy_to_host(f.data());
  double num = 0, den = 0;
  for (std::size_t k = 0; k < f.size(); ++k) {
    num += (au[k] - f[k]) * (au[k] - f[k]);
    den += f[k] * f[k];
  }
  return std::sqrt(num / den);
}

int run(int dim, int steps) {
  // The mesh: random steps in every dimension, Dirichlet sides.
  const std::vector<index_t> sizes =
      dim == 2 ? std::vector<index_t>{1023, 511} : std::vector<index_t>{95, 64, 127};
  std::vector<pscr::Factor<double>> factors, mass;
  for (int d = 0; d < dim; ++d) {
    pscr::problems::DimensionSpec spec;
    spec.n = sizes[d];
    spec.mesh.kind = pscr::problems::MeshKind::random;
    const auto steps_d = pscr::problems::mesh_steps(spec, 7 + d);
    factors.push_back(pscr::problems::poisson_factor(steps_d, spec.left, spec.right));
    // The mass term alone: A = 0 in every dimension, so the operator is c·M1⊗M2[⊗M3].
    pscr::Factor<double> m = factors.back();
    std::fill(m.A.diag.begin(), m.A.diag.end(), 0.0);
    std::fill(m.A.off.begin(), m.A.off.end(), 0.0);
    mass.push_back(m);
  }
  const double dt = 1e-3;
  const pscr::SeparableOperator<double> op(factors, 1.0 / dt);
  const pscr::SeparableOperator<double> mass_op(mass, 1.0 / dt);
  const index_t n = op.grid_size();

  // Built once: the solver plan (no host staging: this program only solves from the device)
  // and the two device operators.
  pscr::cuda::SolverOptions options;
  options.host_buffers = false;
  pscr::cuda::Solver<double> solver(op, options);
  pscr::cuda::DeviceOperator<double> apply_a(op), apply_mass(mass_op);
  std::printf("device_loop %dD: %ld unknowns, plan %.1f MiB, built in %.3f s\n", dim,
              static_cast<long>(n), solver.device_bytes() / 1048576.0, solver.init_seconds());

  pscr::cuda::Stream stream;
  pscr::cuda::DeviceBuffer<double> d_u(n), d_next(n), d_f(n), d_au(n);
  {
    // Initial temperature: a smooth bump, uploaded once.
    std::vector<double> u0(n);
    for (index_t k = 0; k < n; ++k) u0[k] = std::sin(0.001 * static_cast<double>(k)) + 1.0;
    d_u.copy_from_host(u0.data());
  }
  pscr::cuda::Event start, stop;
  std::size_t free_before = 0, free_after = 0, total = 0;

  double worst = 0;
  float solve_ms = 0;
  for (int step = 0; step < steps; ++step) {
    // Measured after the first step, which loads the kernels (CUDA loads modules lazily).
    if (step == 1) {
      stream.synchronize();
      PSCR_CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
    }
    apply_mass.apply(stream.get(), d_u.data(), d_f.data());  // f = (1/Δt) M u^n
    start.record(stream.get());
    solver.solve_device(stream.get(), 1, d_f.data(), d_next.data());
    stop.record(stream.get());
    apply_a.apply(stream.get(), d_next.data(), d_au.data());
    std::swap(d_u, d_next);
    if (step % 5 == 4 || step == steps - 1) {
      stream.synchronize();
      const double res = relative_residual(d_au, d_f);
      worst = std::max(worst, res);
      std::printf("  step %3d: relative residual %.2e\n", step + 1, res);
    }
    stop.synchronize();
    // The first step's time is mostly the kernels' loading: timed from the second step on.
    if (step >= 1 || steps == 1) solve_ms += stop.elapsed_ms_since(start);
  }
  stream.synchronize();
  PSCR_CUDA_CHECK(cudaMemGetInfo(&free_after, &total));
  const int timed = steps > 1 ? steps - 1 : 1;
  std::printf("  %d steps, %.3f ms per solve on the device (%s), worst residual %.2e\n", steps,
              solve_ms / timed, steps > 1 ? "after the first step" : "the first step", worst);
  // The Poisson residual bound of the CPU backend (issue 4). The CPU backend leaves 3.1e-12 on the
  // 2D problem (random mesh, c = 1/Δt = 1000): rounding of ‖A‖‖u‖, which refinement cannot cut.
  const double bound = 1e-11;
  bool ok = true;
  if (worst > bound) {
    std::printf("  FAILED: residual %.2e above %.0e\n", worst, bound);
    ok = false;
  }
  if (steps > 1 && free_after != free_before) {
    std::printf("  FAILED: free device memory changed in the loop (%zu -> %zu bytes)\n",
                free_before, free_after);
    ok = false;
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: device_loop [2d|3d] [steps]\n"
      "  The heat equation on a non-uniform mesh, one GPU PSCR solve per backward-Euler step,\n"
      "  its data kept on the device; checks each fifth step's residual against 1e-11 and that\n"
      "  the loop allocates no device memory (2d: 1023 x 511, 3d: 95 x 64 x 127). Defaults:\n"
      "  2d, 20 steps.\n"
      "  Exit code: 0 passed, 1 failed, 2 bad arguments, 77 no CUDA device.\n";
  const std::string which = argc > 1 ? argv[1] : "2d";
  if (which == "--help" || which == "-h") {
    std::fputs(usage, stdout);
    return 0;
  }
  int steps = 20;
  if (argc > 2) {
    char* end = nullptr;
    const long parsed = std::strtol(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || parsed < 1 || parsed > 1000000) {
      std::fprintf(stderr, "device_loop: steps must be an integer from 1 to 1000000, got '%s'\n%s",
                   argv[2], usage);
      return 2;
    }
    steps = static_cast<int>(parsed);
  }
  if (argc > 3) {
    std::fprintf(stderr, "device_loop: expected at most 2 arguments, got %d\n%s", argc - 1, usage);
    return 2;
  }
  if (which != "2d" && which != "3d") {
    std::fprintf(stderr, "device_loop: expected 2d or 3d, got '%s'\n%s", which.c_str(), usage);
    return 2;
  }
  if (pscr::cuda::device_count() == 0) {
    std::printf("device_loop: no CUDA device, skipped\n");
    return 77;
  }
  try {
    return run(which == "2d" ? 2 : 3, steps);
  } catch (const pscr::Error& e) {
    std::fprintf(stderr, "device_loop: %s\n", e.what());
    return 1;
  }
}
