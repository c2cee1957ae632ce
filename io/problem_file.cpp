#include "io/problem_file.hpp"

#include <cmath>
#include <complex>
#include <optional>

#include "common/error.hpp"
#include "io/hdf5_support.hpp"

namespace pscr::io {

namespace {

using detail::FileReader;
using detail::FileWriter;
using detail::NumericArray;
using detail::shape_text;

const char* const format_name = "pscr-problem";
const char* const factor_parts[4] = {"A%d_diag", "A%d_off", "M%d_diag", "M%d_off"};

std::string factor_name(int part, int d) {
  const std::string pattern = factor_parts[part];
  const auto pos = pattern.find("%d");
  return pattern.substr(0, pos) + std::to_string(d) + pattern.substr(pos + 2);
}

std::string label(const std::string& name) {
  return "dataset `" + name + "`";
}

/// Everything read from a problem file before the scalar type is decided.
struct RawProblem {
  int dimension = 2;
  std::vector<std::array<NumericArray, 4>> factors;  // per dimension: A_diag, A_off, M_diag, M_off
  NumericArray c;
  NumericArray f;
  std::optional<NumericArray> u_exact;
  index_t nrhs = 1;
  bool batched = false;
  std::optional<GeneratorRecord> generator;

  bool is_complex() const {
    bool any = c.is_complex || f.is_complex || (u_exact && u_exact->is_complex);
    for (const auto& parts : factors)
      for (const auto& a : parts) any = any || a.is_complex;
    return any;
  }
};

/// Reads a rank-1 dataset of the given length (checked when `length` ≥ 0).
NumericArray read_vector(const FileReader& r, const std::string& name, index_t length,
                         const std::string& why) {
  NumericArray a = r.read_numeric(name);
  if (a.dims.size() != 1)
    r.fail(label(name), "expected a one-dimensional array" +
                            (length >= 0 ? " of length " + std::to_string(length) : "") + why +
                            ", found shape " + shape_text(a.dims));
  if (length >= 0 && static_cast<index_t>(a.dims[0]) != length)
    r.fail(label(name), "expected length " + std::to_string(length) + why + ", found " +
                            std::to_string(a.dims[0]));
  return a;
}

RawProblem read_raw(const FileReader& r) {
  r.check_format(format_name, problem_format_version);
  RawProblem raw;

  // The dimension: 3 iff any dataset of dimension 3 exists (then all four are required).
  bool has3 = false;
  for (int part = 0; part < 4; ++part) has3 = has3 || r.has_dataset(factor_name(part, 3));
  for (int part = 0; part < 4; ++part)
    if (r.has_dataset(factor_name(part, 4)))
      r.fail(label(factor_name(part, 4)),
             "expected 2 or 3 dimensions (datasets A1_* .. A3_*, M1_* .. M3_*), found a 4th");
  raw.dimension = has3 ? 3 : 2;

  std::vector<index_t> n;
  for (int d = 1; d <= raw.dimension; ++d) {
    std::array<NumericArray, 4> parts;
    for (int part = 0; part < 4; ++part)
      if (!r.has_dataset(factor_name(part, d)))
        r.fail(label(factor_name(part, d)),
               "missing; a " + std::to_string(raw.dimension) + "D problem needs A" +
                   std::to_string(d) + "_diag, A" + std::to_string(d) + "_off, M" +
                   std::to_string(d) + "_diag and M" + std::to_string(d) + "_off");
    const std::string a_diag = factor_name(0, d);
    parts[0] = read_vector(r, a_diag, -1, "");
    const index_t nd = static_cast<index_t>(parts[0].dims[0]);
    if (nd < 1)
      r.fail(label(a_diag), "expected at least 1 entry (n" + std::to_string(d) + " >= 1), found 0");
    const std::string from =
        " (n" + std::to_string(d) + " = " + std::to_string(nd) + " from " + a_diag + ")";
    parts[1] = read_vector(r, factor_name(1, d), nd - 1, " (one fewer than" + from.substr(1));
    parts[2] = read_vector(r, factor_name(2, d), nd, from);
    parts[3] = read_vector(r, factor_name(3, d), nd - 1, " (one fewer than" + from.substr(1));
    raw.factors.push_back(std::move(parts));
    n.push_back(nd);
  }

  raw.c = r.read_numeric("c");
  if (!(raw.c.dims.empty() || (raw.c.dims.size() == 1 && raw.c.dims[0] == 1)))
    r.fail(label("c"), "expected a scalar, found shape " + shape_text(raw.c.dims));

  std::string grid = "(";
  for (std::size_t d = 0; d < n.size(); ++d) grid += (d ? ", " : "") + std::to_string(n[d]);
  grid += ")";
  raw.f = r.read_numeric("f");
  const auto& fd = raw.f.dims;
  const std::size_t dim = static_cast<std::size_t>(raw.dimension);
  const std::string expected_f = "expected shape " + grid + " or (nrhs, " + grid.substr(1) +
                                 " with nrhs >= 1 (n1, n2" + (dim == 3 ? ", n3" : "") +
                                 " from the factor datasets)";
  if (fd.size() != dim && fd.size() != dim + 1)
    r.fail(label("f"), expected_f + ", found shape " + shape_text(fd));
  raw.batched = fd.size() == dim + 1;
  for (std::size_t d = 0; d < dim; ++d)
    if (static_cast<index_t>(fd[fd.size() - dim + d]) != n[d])
      r.fail(label("f"), expected_f + ", found shape " + shape_text(fd));
  raw.nrhs = raw.batched ? static_cast<index_t>(fd[0]) : 1;
  if (raw.nrhs < 1) r.fail(label("f"), expected_f + ", found shape " + shape_text(fd));

  if (r.has_dataset("u_exact")) {
    raw.u_exact = r.read_numeric("u_exact");
    if (raw.u_exact->dims != fd)
      r.fail(label("u_exact"), "expected the shape of f, " + shape_text(fd) + ", found " +
                                   shape_text(raw.u_exact->dims));
  }

  if (r.has_group("generator")) {
    GeneratorRecord g;
    g.description = r.string_attribute("generator", "description");
    bool any_steps = false;
    for (int d = 1; d <= raw.dimension + 1; ++d)
      any_steps = any_steps || r.has_dataset("generator/h" + std::to_string(d));
    if (any_steps) {
      if (r.has_dataset("generator/h" + std::to_string(raw.dimension + 1)))
        r.fail(label("generator/h" + std::to_string(raw.dimension + 1)),
               "expected mesh steps for " + std::to_string(raw.dimension) +
                   " dimensions only, found one more");
      for (int d = 1; d <= raw.dimension; ++d) {
        const std::string name = "generator/h" + std::to_string(d);
        if (!r.has_dataset(name))
          r.fail(label(name), "missing; mesh steps are stored for every dimension or none");
        NumericArray h = read_vector(r, name, -1, "");
        if (h.is_complex) r.fail(label(name), "expected real mesh steps, found complex values");
        for (std::size_t k = 0; k < h.real.size(); ++k)
          if (!(h.real[k] > 0))
            r.fail(label(name), "expected positive mesh steps, found entry [" + std::to_string(k) +
                                    "] = " + std::to_string(h.real[k]));
        g.steps.push_back(std::move(h.real));
      }
    }
    raw.generator = std::move(g);
  }
  return raw;
}

template <class Scalar>
Problem<Scalar> build(RawProblem raw) {
  std::vector<Factor<Scalar>> factors;
  for (auto& parts : raw.factors) {
    Factor<Scalar> f;
    f.A.diag = parts[0].take<Scalar>();
    f.A.off = parts[1].take<Scalar>();
    f.M.diag = parts[2].take<Scalar>();
    f.M.off = parts[3].take<Scalar>();
    factors.push_back(std::move(f));
  }
  const Scalar c = raw.c.take<Scalar>()[0];
  std::vector<Scalar> u_exact;
  if (raw.u_exact) u_exact = raw.u_exact->take<Scalar>();
  return Problem<Scalar>{SeparableOperator<Scalar>(std::move(factors), c),
                         raw.nrhs,
                         raw.batched,
                         raw.f.take<Scalar>(),
                         std::move(u_exact),
                         std::move(raw.generator)};
}

template <class Scalar>
bool all_finite(const std::vector<Scalar>& v) {
  for (const auto& x : v) {
    if constexpr (is_complex_v<Scalar>) {
      if (!std::isfinite(x.real()) || !std::isfinite(x.imag())) return false;
    } else {
      if (!std::isfinite(x)) return false;
    }
  }
  return true;
}

template <class Scalar>
void validate_for_writing(const std::string& path, const Problem<Scalar>& p) {
  const index_t grid = p.op.grid_size();
  const std::string where = path + ": cannot write the problem: ";
  if (p.nrhs < 1) PSCR_INPUT_ERROR(where << "expected nrhs >= 1, found " << p.nrhs);
  if (!p.batched && p.nrhs != 1)
    PSCR_INPUT_ERROR(where << "expected batched = true for nrhs = " << p.nrhs);
  if (static_cast<index_t>(p.f.size()) != p.nrhs * grid)
    PSCR_INPUT_ERROR(where << "expected f with nrhs * grid size = " << p.nrhs * grid
                           << " entries, found " << p.f.size());
  if (!p.u_exact.empty() && p.u_exact.size() != p.f.size())
    PSCR_INPUT_ERROR(where << "expected u_exact empty or with " << p.f.size()
                           << " entries like f, found " << p.u_exact.size());
  if (!all_finite(p.f)) PSCR_INPUT_ERROR(where << "f has non-finite entries");
  if (!all_finite(p.u_exact)) PSCR_INPUT_ERROR(where << "u_exact has non-finite entries");
  if (p.generator) {
    const auto& steps = p.generator->steps;
    if (!steps.empty() && static_cast<int>(steps.size()) != p.op.dimension())
      PSCR_INPUT_ERROR(where << "expected mesh steps for 0 or " << p.op.dimension()
                             << " dimensions, found " << steps.size());
    for (const auto& h : steps)
      for (double x : h)
        if (!(x > 0) || !std::isfinite(x))
          PSCR_INPUT_ERROR(where << "expected positive finite mesh steps, found " << x);
  }
}

template <class Scalar>
void write_typed(const std::string& path, const Problem<Scalar>& p, bool force) {
  validate_for_writing(path, p);
  detail::guarded_write(path, [&] {
    std::size_t entries = p.f.size() + p.u_exact.size();
    for (index_t n : p.op.shape()) entries += 4 * static_cast<std::size_t>(n);
    FileWriter w(path, force, entries * sizeof(Scalar));
    w.string_attribute("/", "format", format_name);
    w.integer_attribute("/", "format_version", problem_format_version);
    const int dim = p.op.dimension();
    for (int d = 1; d <= dim; ++d) {
      const Factor<Scalar>& f = p.op.factor(d - 1);
      const std::vector<const std::vector<Scalar>*> parts = {&f.A.diag, &f.A.off, &f.M.diag,
                                                             &f.M.off};
      for (int part = 0; part < 4; ++part)
        w.write(factor_name(part, d), {static_cast<hsize_t>(parts[part]->size())},
                parts[part]->data());
    }
    const Scalar c = p.op.c();
    w.write("c", {}, &c);
    std::vector<hsize_t> shape = detail::to_dims(p.op.shape());
    if (p.batched) shape.insert(shape.begin(), static_cast<hsize_t>(p.nrhs));
    w.write("f", shape, p.f.data());
    if (!p.u_exact.empty()) w.write("u_exact", shape, p.u_exact.data());
    if (p.generator) {
      w.create_group("generator");
      w.string_attribute("generator", "description", p.generator->description);
      for (std::size_t d = 0; d < p.generator->steps.size(); ++d) {
        const auto& h = p.generator->steps[d];
        w.write_real("generator/h" + std::to_string(d + 1), {static_cast<hsize_t>(h.size())},
                     h.data());
      }
    }
    w.commit();
  });
}

}  // namespace

AnyProblem read_problem(const std::string& path) {
  return detail::guarded_read(path, [&]() -> AnyProblem {
    FileReader reader(path, "problem");
    RawProblem raw = read_raw(reader);
    if (raw.is_complex()) return build<std::complex<double>>(std::move(raw));
    return build<double>(std::move(raw));
  });
}

void write_problem(const std::string& path, const AnyProblem& problem, bool force) {
  std::visit([&](const auto& p) { write_typed(path, p, force); }, problem);
}

}  // namespace pscr::io
