#include "io/solution_file.hpp"

#include <cmath>

#include "common/error.hpp"
#include "io/hdf5_support.hpp"

namespace pscr::io {

namespace {

using detail::FileReader;
using detail::FileWriter;
using detail::shape_text;

const char* const format_name = "pscr-solution";

/// Whether `count` residuals fit a u of shape `dims`: one per grid, so 1 for an unbatched grid,
/// or dims[0] for a batch (a rank-3 u is a 3D grid or a batch of 2D grids: either fits).
bool residual_count_fits(std::size_t count, const std::vector<hsize_t>& dims) {
  if (dims.size() == 2) return count == 1;
  if (dims.size() == 3) return count == 1 || count == dims[0];
  return dims.size() == 4 && count == dims[0];
}

std::string expected_residuals(const std::vector<hsize_t>& dims) {
  if (dims.size() == 2) return "(1,)";
  if (dims.size() == 3) return "(1,) or (" + std::to_string(dims[0]) + ",)";
  return "(" + std::to_string(dims[0]) + ",)";
}

template <class Scalar>
Solution<Scalar> build(detail::NumericArray u, SolveRecord record) {
  Solution<Scalar> s;
  s.shape.assign(u.dims.begin(), u.dims.end());
  s.u = u.take<Scalar>();
  s.record = std::move(record);
  return s;
}

template <class Scalar>
void write_typed(const std::string& path, const Solution<Scalar>& s, bool force) {
  const std::string where = path + ": cannot write the solution: ";
  const std::vector<hsize_t> dims = detail::to_dims(s.shape);
  std::size_t count = 1;
  for (index_t n : s.shape) {
    if (n < 1) PSCR_INPUT_ERROR(where << "expected extents >= 1, found shape " << shape_text(dims));
    count *= static_cast<std::size_t>(n);
  }
  if (dims.size() < 2 || dims.size() > 4)
    PSCR_INPUT_ERROR(where << "expected u of rank 2, 3 or 4, found shape " << shape_text(dims));
  if (s.u.size() != count)
    PSCR_INPUT_ERROR(where << "expected " << count << " entries for shape " << shape_text(dims)
                           << ", found " << s.u.size());
  if (!residual_count_fits(s.record.residuals.size(), dims))
    PSCR_INPUT_ERROR(where << "expected residuals of shape " << expected_residuals(dims)
                           << " for u of shape " << shape_text(dims) << ", found "
                           << s.record.residuals.size() << " entries");
  detail::guarded_write(path, [&] {
    FileWriter w(path, force, s.u.size() * sizeof(Scalar));
    w.string_attribute("/", "format", format_name);
    w.integer_attribute("/", "format_version", solution_format_version);
    w.string_attribute("/", "backend", s.record.backend);
    w.string_attribute("/", "pscr_version", s.record.pscr_version);
    w.string_attribute("/", "problem_file", s.record.problem_file);
    w.integer_attribute("/", "threads", s.record.threads);
    w.float_attribute("/", "init_seconds", s.record.init_seconds);
    w.float_attribute("/", "solve_seconds", s.record.solve_seconds);
    w.float_attribute("/", "transfer_seconds", s.record.transfer_seconds);
    w.write("u", dims, s.u.data());
    w.write_real("residual", {static_cast<hsize_t>(s.record.residuals.size())},
                 s.record.residuals.data());
    w.commit();
  });
}

}  // namespace

AnySolution read_solution(const std::string& path) {
  return detail::guarded_read(path, [&]() -> AnySolution {
    FileReader r(path, "solution");
    r.check_format(format_name, solution_format_version);
    SolveRecord rec;
    rec.backend = r.string_attribute("/", "backend");
    rec.pscr_version = r.string_attribute("/", "pscr_version");
    rec.problem_file = r.string_attribute("/", "problem_file");
    const std::int64_t threads = r.integer_attribute("/", "threads");
    if (threads < 1 || threads > 1 << 20)
      r.fail("attribute `threads`",
             "expected a thread count >= 1, found " + std::to_string(threads));
    rec.threads = static_cast<int>(threads);
    rec.init_seconds = r.float_attribute("/", "init_seconds");
    rec.solve_seconds = r.float_attribute("/", "solve_seconds");
    rec.transfer_seconds = r.float_attribute("/", "transfer_seconds");

    detail::NumericArray u = r.read_numeric("u");
    if (u.dims.size() < 2 || u.dims.size() > 4)
      r.fail("dataset `u`",
             "expected shape (n1, n2[, n3]) or (nrhs, n1, n2[, n3]), found " + shape_text(u.dims));
    for (hsize_t n : u.dims)
      if (n < 1) r.fail("dataset `u`", "expected extents >= 1, found shape " + shape_text(u.dims));
    detail::NumericArray res = r.read_numeric("residual");
    if (res.is_complex) r.fail("dataset `residual`", "expected float64, found complex values");
    if (res.dims.size() != 1 || !residual_count_fits(res.dims[0], u.dims))
      r.fail("dataset `residual`", "expected shape " + expected_residuals(u.dims) +
                                       " (one per right-hand side of u " + shape_text(u.dims) +
                                       "), found " + shape_text(res.dims));
    for (double x : res.real)
      if (x < 0)
        r.fail("dataset `residual`",
               "expected non-negative relative residuals, found " + std::to_string(x));
    rec.residuals = std::move(res.real);
    if (u.is_complex) return build<std::complex<double>>(std::move(u), std::move(rec));
    return build<double>(std::move(u), std::move(rec));
  });
}

void write_solution(const std::string& path, const AnySolution& solution, bool force) {
  std::visit([&](const auto& s) { write_typed(path, s, force); }, solution);
}

}  // namespace pscr::io
