#include "io/eigen_data_file.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <tuple>
#include <utility>

#include "common/error.hpp"
#include "eigen_init/eigen_data_check.hpp"
#include "io/hdf5_support.hpp"

namespace pscr::io {

namespace {

using detail::FileReader;
using detail::FileWriter;

const char* const format_name = "pscr-eigen-data";

/// FNV-1a, 64 bit, fed byte by byte in little-endian order whatever the host's byte order.
class Fnv1a {
 public:
  void u64(std::uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      hash_ ^= (v >> (8 * b)) & 0xffu;
      hash_ *= 0x100000001b3ull;
    }
  }
  void f64(double x) {
    std::uint64_t v;
    std::memcpy(&v, &x, sizeof v);
    u64(v);
  }
  void value(double x) { f64(x); }
  void value(const std::complex<double>& x) {
    f64(x.real());
    f64(x.imag());
  }
  std::uint64_t hash() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

std::string group_name(std::size_t d) {
  return "dim" + std::to_string(d + 1);
}
std::string dataset(const std::string& group, const char* name) {
  return "dataset `" + group + "/" + name + "`";
}

/// The file's dataset that holds each part of the eigen-data.
const char* dataset_of(EigenDataPart part) {
  switch (part) {
    case EigenDataPart::levels:
    case EigenDataPart::blocks:
      return "level_offset";
    case EigenDataPart::entry_index:
      return "block_entry";
    case EigenDataPart::eigenvalue_count:
      return "lambda_offset";
    case EigenDataPart::component_rows:
      return "rows";
    case EigenDataPart::eigenvalues:
      return "lambda";
    case EigenDataPart::components:
    case EigenDataPart::component_values:
      break;
  }
  return "W";
}

/// Checks an offset array: entries + 1 values from 0, non-decreasing, ending at `total`.
void check_offsets(const FileReader& r, const std::string& object,
                   const std::vector<std::int64_t>& offsets, std::size_t expected_count,
                   std::size_t total, const std::string& total_what) {
  if (offsets.size() != expected_count)
    r.fail(object, "expected " + std::to_string(expected_count) + " offsets, found " +
                       std::to_string(offsets.size()));
  if (offsets.front() != 0)
    r.fail(object, "expected the first offset to be 0, found " + std::to_string(offsets[0]));
  for (std::size_t k = 1; k < offsets.size(); ++k)
    if (offsets[k] < offsets[k - 1])
      r.fail(object, "expected non-decreasing offsets, found " + std::to_string(offsets[k - 1]) +
                         " then " + std::to_string(offsets[k]) + " at " + std::to_string(k));
  if (static_cast<std::size_t>(offsets.back()) != total)
    r.fail(object, "expected the last offset to be " + std::to_string(total) + " (the length of " +
                       total_what + "), found " + std::to_string(offsets.back()));
}

/// The root of an eigen-data file: its format and version checked, its scalar type and number
/// of dimensions returned.
std::pair<std::string, std::int64_t> read_root(const FileReader& r) {
  if (!r.has_attribute("/", "format"))
    r.fail("attribute `format`", "missing; expected \"" + std::string(format_name) + "\"");
  r.check_format(format_name, eigen_data_format_version);
  return {r.string_attribute("/", "scalar"), r.integer_attribute("/", "dimensions")};
}

template <class Scalar>
EigenData<Scalar> read_dimension(const FileReader& r, const std::string& group,
                                 const Factor<Scalar>& factor) {
  const std::string label = "group `" + group + "`";
  if (!r.has_group(group)) r.fail(label, "missing");
  const std::int64_t n = r.integer_attribute(group, "n");
  if (n != factor.size())
    r.fail("attribute `n` of `" + group + "`",
           "expected " + std::to_string(factor.size()) + " (the size of the given factor), found " +
               std::to_string(n) + ": the eigen-data belong to another problem");
  const std::uint64_t stored = r.unsigned_attribute(group, "factor_checksum");
  const std::uint64_t actual = factor_checksum(factor);
  if (stored != actual)
    r.fail("attribute `factor_checksum` of `" + group + "`",
           "expected " + hex(actual) + " (the checksum of the given factor), found " + hex(stored) +
               ": the eigen-data were computed for different factor entries");
  const std::int64_t radix = r.integer_attribute(group, "radix");
  if (radix < 2 || radix > std::numeric_limits<int>::max())
    r.fail("attribute `radix` of `" + group + "`",
           "expected an integer >= 2, found " + std::to_string(radix));

  EigenData<Scalar> data;
  data.partition = Partition(n, static_cast<int>(radix));

  auto read_values = [&](const char* name) {
    detail::NumericArray a = r.read_numeric(group + "/" + name);
    if (a.dims.size() != 1)
      r.fail(dataset(group, name),
             "expected a one-dimensional array, found shape " + detail::shape_text(a.dims));
    if (a.is_complex && !is_complex_v<Scalar>)
      r.fail(dataset(group, name), "expected real values, found complex ones");
    return a.take<Scalar>();
  };
  const std::vector<Scalar> lambda = read_values("lambda");
  const std::vector<Scalar> W = read_values("W");
  const auto rows = r.read_integers(group + "/rows");
  const auto lambda_offset = r.read_integers(group + "/lambda_offset");
  if (lambda_offset.empty())
    r.fail(dataset(group, "lambda_offset"), "expected at least one offset (0), found none");
  const std::size_t entries = lambda_offset.size() - 1;
  check_offsets(r, dataset(group, "lambda_offset"), lambda_offset, entries + 1, lambda.size(),
                "lambda");
  const auto rows_offset = r.read_integers(group + "/rows_offset");
  check_offsets(r, dataset(group, "rows_offset"), rows_offset, entries + 1, rows.size(), "rows");

  std::size_t w_total = 0;
  data.distinct.resize(entries);
  for (std::size_t e = 0; e < entries; ++e) {
    BlockEigen<Scalar>& entry = data.distinct[e];
    const std::size_t m = lambda_offset[e + 1] - lambda_offset[e];
    const std::size_t nr = rows_offset[e + 1] - rows_offset[e];
    entry.lambda.assign(lambda.begin() + lambda_offset[e], lambda.begin() + lambda_offset[e + 1]);
    entry.rows.assign(rows.begin() + rows_offset[e], rows.begin() + rows_offset[e + 1]);
    if (m != 0 && nr > (W.size() - w_total) / m)
      r.fail(dataset(group, "W"), "expected at least " + std::to_string(w_total + nr * m) +
                                      " components (entries 0.." + std::to_string(e) + "), found " +
                                      std::to_string(W.size()));
    entry.W.assign(W.begin() + w_total, W.begin() + w_total + nr * m);
    w_total += nr * m;
  }
  if (w_total != W.size())
    r.fail(dataset(group, "W"), "expected " + std::to_string(w_total) +
                                    " components (sum of rows × eigenvalues per entry), found " +
                                    std::to_string(W.size()));

  const auto block_entry = r.read_integers(group + "/block_entry");
  const auto level_offset = r.read_integers(group + "/level_offset");
  const int levels = data.partition.num_levels();
  if (level_offset.size() != static_cast<std::size_t>(levels) + 1)
    r.fail(dataset(group, "level_offset"),
           "expected " + std::to_string(levels + 1) + " offsets (" + std::to_string(levels) +
               " levels for n = " + std::to_string(n) + ", radix " + std::to_string(radix) +
               "), found " + std::to_string(level_offset.size()));
  check_offsets(r, dataset(group, "level_offset"), level_offset, levels + 1, block_entry.size(),
                "block_entry");
  for (int i = 1; i <= levels; ++i)
    data.block_entry.emplace_back(block_entry.begin() + level_offset[i - 1],
                                  block_entry.begin() + level_offset[i]);
  if (const auto fault = find_fault(data))
    r.fail(dataset(group, dataset_of(fault->part)), fault->message);
  return data;
}

}  // namespace

template <class Scalar>
std::uint64_t factor_checksum(const Factor<Scalar>& factor) {
  Fnv1a h;
  h.u64(static_cast<std::uint64_t>(static_cast<std::int64_t>(factor.size())));
  for (const auto* v : {&factor.A.diag, &factor.A.off, &factor.M.diag, &factor.M.off})
    for (const Scalar& x : *v) h.value(x);
  return h.hash();
}

template <class Scalar>
void write_eigen_data(const std::string& path, const std::vector<EigenData<Scalar>>& per_dimension,
                      const std::vector<const Factor<Scalar>*>& factors, bool force) {
  const std::string where = path + ": cannot write the eigen-data: ";
  if (per_dimension.empty() || per_dimension.size() != factors.size())
    PSCR_INPUT_ERROR(where << "expected one factor per dimension of eigen-data (at least one), "
                              "found "
                           << per_dimension.size() << " dimensions and " << factors.size()
                           << " factors");
  std::size_t bytes = 0;
  for (std::size_t d = 0; d < per_dimension.size(); ++d) {
    const EigenData<Scalar>& data = per_dimension[d];
    if (factors[d] == nullptr || factors[d]->size() != data.partition.size())
      PSCR_INPUT_ERROR(where << "factor " << d + 1 << " has size "
                             << (factors[d] ? factors[d]->size() : 0)
                             << ", expected the partition's size " << data.partition.size());
    if (const auto fault = find_fault(data))
      throw InputError(where + dataset(group_name(d), dataset_of(fault->part)) + ": " +
                       fault->message);
    for (const auto& e : data.distinct)
      bytes += (e.lambda.size() + e.W.size()) * sizeof(Scalar) + e.rows.size() * 8;
  }
  detail::guarded_write(path, [&] {
    FileWriter w(path, force, bytes);
    w.string_attribute("/", "format", format_name);
    w.integer_attribute("/", "format_version", eigen_data_format_version);
    w.string_attribute("/", "scalar", scalar_traits<Scalar>::name);
    w.integer_attribute("/", "dimensions", static_cast<std::int64_t>(per_dimension.size()));
    for (std::size_t d = 0; d < per_dimension.size(); ++d) {
      const EigenData<Scalar>& data = per_dimension[d];
      const std::string g = group_name(d);
      w.create_group(g);
      w.integer_attribute(g, "n", data.partition.size());
      w.integer_attribute(g, "radix", data.partition.radix());
      w.unsigned_attribute(g, "factor_checksum", factor_checksum(*factors[d]));
      // Concatenated entries with offsets (docs/file-format.md).
      std::vector<Scalar> lambda, W;
      std::vector<std::int64_t> rows, lambda_offset{0}, rows_offset{0}, block_entry,
          level_offset{0};
      for (const auto& e : data.distinct) {
        lambda.insert(lambda.end(), e.lambda.begin(), e.lambda.end());
        W.insert(W.end(), e.W.begin(), e.W.end());
        rows.insert(rows.end(), e.rows.begin(), e.rows.end());
        lambda_offset.push_back(static_cast<std::int64_t>(lambda.size()));
        rows_offset.push_back(static_cast<std::int64_t>(rows.size()));
      }
      for (const auto& level : data.block_entry) {
        block_entry.insert(block_entry.end(), level.begin(), level.end());
        level_offset.push_back(static_cast<std::int64_t>(block_entry.size()));
      }
      w.write(g + "/lambda", {static_cast<hsize_t>(lambda.size())}, lambda.data());
      w.write_integers(g + "/lambda_offset", lambda_offset);
      w.write_integers(g + "/rows", rows);
      w.write_integers(g + "/rows_offset", rows_offset);
      w.write(g + "/W", {static_cast<hsize_t>(W.size())}, W.data());
      w.write_integers(g + "/block_entry", block_entry);
      w.write_integers(g + "/level_offset", level_offset);
    }
    w.commit();
  });
}

template <class Scalar>
std::vector<EigenData<Scalar>> read_eigen_data(const std::string& path,
                                               const std::vector<const Factor<Scalar>*>& factors) {
  return detail::guarded_read(path, [&] {
    FileReader r(path, "eigen-data");
    const auto [scalar, dims] = read_root(r);
    if (scalar != scalar_traits<Scalar>::name)
      r.fail("attribute `scalar`", std::string("expected \"") + scalar_traits<Scalar>::name +
                                       "\" (the scalar type of the given factors), found \"" +
                                       scalar + "\"");
    if (dims != static_cast<std::int64_t>(factors.size()))
      r.fail("attribute `dimensions`", "expected " + std::to_string(factors.size()) +
                                           " (one per given factor), found " +
                                           std::to_string(dims));
    std::vector<EigenData<Scalar>> out;
    for (std::size_t d = 0; d < factors.size(); ++d) {
      if (factors[d] == nullptr)
        throw InputError(path + ": read_eigen_data: factor " + std::to_string(d + 1) +
                         " is a null pointer");
      out.push_back(read_dimension(r, group_name(d), *factors[d]));
    }
    return out;
  });
}

EigenDataHeader read_eigen_data_header(const std::string& path) {
  return detail::guarded_read(path, [&] {
    FileReader r(path, "eigen-data");
    EigenDataHeader header;
    std::int64_t dims = 0;
    std::tie(header.scalar, dims) = read_root(r);
    if (dims < 1 || dims > 2)
      r.fail("attribute `dimensions`", "expected 1 or 2, found " + std::to_string(dims));
    for (std::int64_t d = 0; d < dims; ++d) {
      const std::string group = group_name(static_cast<std::size_t>(d));
      if (!r.has_group(group)) r.fail("group `" + group + "`", "missing");
      header.dimensions.push_back({r.integer_attribute(group, "n"),
                                   r.integer_attribute(group, "radix"),
                                   r.unsigned_attribute(group, "factor_checksum")});
    }
    return header;
  });
}

#define PSCR_INSTANTIATE_EIGEN_DATA_FILE(S)                                               \
  template std::uint64_t factor_checksum<S>(const Factor<S>&);                            \
  template void write_eigen_data<S>(const std::string&, const std::vector<EigenData<S>>&, \
                                    const std::vector<const Factor<S>*>&, bool);          \
  template std::vector<EigenData<S>> read_eigen_data<S>(const std::string&,               \
                                                        const std::vector<const Factor<S>*>&);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE_EIGEN_DATA_FILE)

}  // namespace pscr::io
