#include "io/hdf5_support.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

#include "io/file_info.hpp"

namespace pscr::io::detail {

namespace {

herr_t collect_error(unsigned /*n*/, const H5E_error2_t* err, void* data) {
  auto* lines = static_cast<std::vector<std::string>*>(data);
  std::string line = err->func_name ? err->func_name : "?";
  line += ": ";
  line += err->desc ? err->desc : "";
  lines->push_back(std::move(line));
  return 0;
}

const char* class_name(H5T_class_t cls) {
  switch (cls) {
    case H5T_INTEGER:
      return "integer";
    case H5T_FLOAT:
      return "float";
    case H5T_TIME:
      return "time";
    case H5T_STRING:
      return "string";
    case H5T_BITFIELD:
      return "bitfield";
    case H5T_OPAQUE:
      return "opaque";
    case H5T_COMPOUND:
      return "compound";
    case H5T_REFERENCE:
      return "reference";
    case H5T_ENUM:
      return "enum (e.g. a numpy bool)";
    case H5T_VLEN:
      return "variable-length sequence";
    case H5T_ARRAY:
      return "array";
    default:
      return "unknown class";
  }
}

std::string member_name(hid_t type, unsigned k) {
  char* raw = H5Tget_member_name(type, k);
  if (raw == nullptr) PSCR_H5_FAIL("H5Tget_member_name");
  std::string name(raw);
  H5free_memory(raw);
  return name;
}

std::string dataset_label(const std::string& name) {
  return "dataset `" + name + "`";
}

std::string attribute_label(const std::string& object, const std::string& name) {
  if (object == "/" || object.empty()) return "attribute `" + name + "`";
  return "attribute `" + name + "` of `" + object + "`";
}

std::string index_text(std::size_t flat, const std::vector<hsize_t>& dims) {
  if (dims.empty()) return "the value";
  std::vector<hsize_t> idx(dims.size());
  for (std::size_t d = dims.size(); d-- > 0;) {
    idx[d] = flat % dims[d];
    flat /= dims[d];
  }
  std::ostringstream s;
  s << "entry [";
  for (std::size_t d = 0; d < idx.size(); ++d) s << (d ? ", " : "") << idx[d];
  s << "]";
  return s.str();
}

bool path_exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::string parent_directory(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

[[noreturn]] void output_error(const std::string& path, const std::string& message) {
  throw OutputError(path + ": " + message);
}

}  // namespace

std::string hdf5_error_stack() {
  std::vector<std::string> lines;
  if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_error, &lines) < 0 || lines.empty())
    return "";
  if (lines.size() == 1) return lines.front();
  return lines.front() + " ... " + lines.back();
}

ErrorPrintingOff::ErrorPrintingOff() {
  saved_ = H5Eget_auto2(H5E_DEFAULT, &func_, &data_) >= 0;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

ErrorPrintingOff::~ErrorPrintingOff() {
  if (saved_) H5Eset_auto2(H5E_DEFAULT, func_, data_);
}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    if (id_ >= 0) closer_(id_);
    id_ = other.id_;
    closer_ = other.closer_;
    other.id_ = -1;
  }
  return *this;
}

Handle::~Handle() {
  if (id_ >= 0) closer_(id_);
}

void Handle::close() {
  if (id_ < 0) return;
  const hid_t id = id_;
  id_ = -1;
  PSCR_H5_CHECK(closer_(id));
}

Handle make_dataspace(const std::vector<hsize_t>& dims) {
  if (dims.empty()) return Handle(PSCR_H5_CHECK(H5Screate(H5S_SCALAR)), H5Sclose);
  return Handle(
      PSCR_H5_CHECK(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr)),
      H5Sclose);
}

Handle copy_type(hid_t type) {
  return Handle(PSCR_H5_CHECK(H5Tcopy(type)), H5Tclose);
}

namespace {
Handle complex_type(hid_t component) {
  const std::size_t size = H5Tget_size(component);
  if (size == 0) PSCR_H5_FAIL("H5Tget_size");
  Handle t(PSCR_H5_CHECK(H5Tcreate(H5T_COMPOUND, 2 * size)), H5Tclose);
  PSCR_H5_CHECK(H5Tinsert(t.get(), "r", 0, component));
  PSCR_H5_CHECK(H5Tinsert(t.get(), "i", size, component));
  return t;
}
}  // namespace

Handle complex_memory_type() {
  static_assert(sizeof(std::complex<double>) == 2 * sizeof(double),
                "std::complex<double> must be laid out as {real, imag}");
  return complex_type(H5T_NATIVE_DOUBLE);
}

Handle complex_file_type() {
  return complex_type(H5T_IEEE_F64LE);
}

Handle string_type() {
  Handle t = copy_type(H5T_C_S1);
  PSCR_H5_CHECK(H5Tset_size(t.get(), H5T_VARIABLE));
  PSCR_H5_CHECK(H5Tset_cset(t.get(), H5T_CSET_UTF8));
  return t;
}

template <>
std::vector<double> NumericArray::take<double>() {
  if (is_complex) throw std::logic_error("NumericArray::take<double> on complex values");
  return std::move(real);
}

template <>
std::vector<std::complex<double>> NumericArray::take<std::complex<double>>() {
  if (is_complex) return std::move(cplx);
  std::vector<std::complex<double>> out(real.begin(), real.end());
  real.clear();
  return out;
}

std::string shape_text(const std::vector<hsize_t>& dims) {
  if (dims.empty()) return "() (scalar)";
  std::ostringstream s;
  s << "(";
  for (std::size_t d = 0; d < dims.size(); ++d) s << (d ? ", " : "") << dims[d];
  if (dims.size() == 1) s << ",";
  s << ")";
  return s.str();
}

std::vector<hsize_t> to_dims(const std::vector<index_t>& shape) {
  return std::vector<hsize_t>(shape.begin(), shape.end());
}

// ----------------------------------------------------------------------------------------------
// FileReader

FileReader::FileReader(const std::string& path, const std::string& kind)
    : path_(path), kind_(kind) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(path + ": cannot open the " + kind + " file: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    throw InputError(path + ": expected an HDF5 " + kind + " file, found a directory");
  if (::access(path.c_str(), R_OK) != 0)
    throw InputError(path + ": cannot read the " + kind + " file: " + std::strerror(errno));
#if H5_VERSION_GE(1, 12, 0)
  const htri_t is_hdf5 = H5Fis_accessible(path.c_str(), H5P_DEFAULT);
#else
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
#endif
  if (is_hdf5 <= 0)
    throw InputError(path + ": expected an HDF5 " + kind +
                     " file, found a file that is not HDF5 (no HDF5 signature)");
  file_ = Handle(PSCR_H5_CHECK(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)), H5Fclose);
}

void FileReader::fail(const std::string& object, const std::string& message) const {
  throw InputError(path_ + ": " + object + ": " + message);
}

bool FileReader::link_exists(const std::string& name) const {
  std::size_t pos = 0;
  while (true) {
    const std::size_t slash = name.find('/', pos);
    const std::string prefix = name.substr(0, slash);
    if (PSCR_H5_CHECK(H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT)) <= 0) return false;
    if (slash == std::string::npos) return true;
    pos = slash + 1;
  }
}

H5I_type_t FileReader::object_type(const std::string& name) const {
  Handle obj(PSCR_H5_CHECK(H5Oopen(file_.get(), name.c_str(), H5P_DEFAULT)), H5Oclose);
  return PSCR_H5_CHECK(H5Iget_type(obj.get()));
}

bool FileReader::has_dataset(const std::string& name) const {
  if (!link_exists(name)) return false;
  const H5I_type_t type = object_type(name);
  if (type != H5I_DATASET)
    fail("`" + name + "`", std::string("expected a dataset, found ") +
                               (type == H5I_GROUP ? "a group" : "another kind of object"));
  return true;
}

bool FileReader::has_group(const std::string& name) const {
  if (!link_exists(name)) return false;
  const H5I_type_t type = object_type(name);
  if (type != H5I_GROUP)
    fail("`" + name + "`", std::string("expected a group, found ") +
                               (type == H5I_DATASET ? "a dataset" : "another kind of object"));
  return true;
}

bool FileReader::has_attribute(const std::string& object, const std::string& name) const {
  return PSCR_H5_CHECK(H5Aexists_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT)) >
         0;
}

namespace {
/// Dimensions of a dataspace; nullopt for a null dataspace.
std::optional<std::vector<hsize_t>> extent(hid_t space) {
  const H5S_class_t cls = H5Sget_simple_extent_type(space);
  if (cls == H5S_NO_CLASS) PSCR_H5_FAIL("H5Sget_simple_extent_type");
  if (cls == H5S_NULL) return std::nullopt;
  const int rank = PSCR_H5_CHECK(H5Sget_simple_extent_ndims(space));
  std::vector<hsize_t> dims(rank);
  if (rank > 0) PSCR_H5_CHECK(H5Sget_simple_extent_dims(space, dims.data(), nullptr));
  return dims;
}

bool is_finite(double x) {
  return std::isfinite(x);
}
bool is_finite(const std::complex<double>& x) {
  return std::isfinite(x.real()) && std::isfinite(x.imag());
}
}  // namespace

NumericArray FileReader::read_numeric(const std::string& name) const {
  const std::string label = dataset_label(name);
  if (!has_dataset(name)) fail(label, "missing (required by the " + kind_ + " file format)");
  Handle ds(PSCR_H5_CHECK(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT)), H5Dclose);
  Handle type(PSCR_H5_CHECK(H5Dget_type(ds.get())), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls == H5T_NO_CLASS) PSCR_H5_FAIL("H5Tget_class");

  const char* expected =
      "expected numbers (float64, another float or integer type, or the complex "
      "compound {r, i} of floats)";
  NumericArray out;
  if (cls == H5T_COMPOUND) {
    const int members = PSCR_H5_CHECK(H5Tget_nmembers(type.get()));
    std::vector<std::string> names;
    bool numeric = true;
    for (int k = 0; k < members; ++k) {
      names.push_back(member_name(type.get(), static_cast<unsigned>(k)));
      const H5T_class_t mc = H5Tget_member_class(type.get(), static_cast<unsigned>(k));
      numeric = numeric && (mc == H5T_FLOAT || mc == H5T_INTEGER);
    }
    const bool ri = members == 2 &&
                    ((names[0] == "r" && names[1] == "i") || (names[0] == "i" && names[1] == "r"));
    if (!ri || !numeric) {
      std::string found = "a compound with members (";
      for (std::size_t k = 0; k < names.size(); ++k) found += (k ? ", " : "") + names[k];
      found += ")";
      if (ri) found += " that are not numbers";
      fail(label, std::string(expected) + ", found " + found);
    }
    out.is_complex = true;
  } else if (cls != H5T_FLOAT && cls != H5T_INTEGER) {
    fail(label, std::string(expected) + ", found " + class_name(cls) + " values");
  }

  Handle space(PSCR_H5_CHECK(H5Dget_space(ds.get())), H5Sclose);
  const auto dims = extent(space.get());
  if (!dims) fail(label, std::string(expected) + ", found an empty (null) dataspace");
  out.dims = *dims;
  std::size_t count = 1;
  for (hsize_t d : out.dims) {
    if (d != 0 && count > std::numeric_limits<std::size_t>::max() / 16 / d)
      fail(label, "shape " + shape_text(out.dims) + " is too large to hold in memory");
    count *= static_cast<std::size_t>(d);
  }
  if (out.is_complex) {
    out.cplx.resize(count);
    if (count > 0) {
      Handle mem = complex_memory_type();
      PSCR_H5_CHECK(H5Dread(ds.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.cplx.data()));
    }
    for (std::size_t k = 0; k < count; ++k)
      if (!is_finite(out.cplx[k])) {
        std::ostringstream v;
        v << out.cplx[k];
        fail(label, "expected finite values, found " + index_text(k, out.dims) + " = " + v.str());
      }
  } else {
    out.real.resize(count);
    if (count > 0)
      PSCR_H5_CHECK(
          H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.real.data()));
    for (std::size_t k = 0; k < count; ++k)
      if (!is_finite(out.real[k])) {
        std::ostringstream v;
        v << out.real[k];
        fail(label, "expected finite values, found " + index_text(k, out.dims) + " = " + v.str());
      }
  }
  return out;
}

std::vector<std::int64_t> FileReader::read_integers(const std::string& name) const {
  const std::string label = dataset_label(name);
  if (!has_dataset(name)) fail(label, "missing (required by the " + kind_ + " file format)");
  Handle ds(PSCR_H5_CHECK(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT)), H5Dclose);
  Handle type(PSCR_H5_CHECK(H5Dget_type(ds.get())), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_INTEGER)
    fail(label, std::string("expected integers, found ") + class_name(cls) + " values");
  Handle space(PSCR_H5_CHECK(H5Dget_space(ds.get())), H5Sclose);
  const auto dims = extent(space.get());
  if (!dims || dims->size() != 1)
    fail(label, "expected a one-dimensional array, found shape " +
                    (dims ? shape_text(*dims) : std::string("null")));
  std::vector<std::int64_t> values((*dims)[0]);
  if (!values.empty())
    PSCR_H5_CHECK(
        H5Dread(ds.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()));
  return values;
}

Handle FileReader::open_attribute(const std::string& object, const std::string& name,
                                  const std::vector<H5T_class_t>& want,
                                  const char* want_text) const {
  const std::string label = attribute_label(object, name);
  if (!has_attribute(object, name)) fail(label, std::string("missing; expected ") + want_text);
  Handle attr(PSCR_H5_CHECK(H5Aopen_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT,
                                            H5P_DEFAULT)),
              H5Aclose);
  Handle type(PSCR_H5_CHECK(H5Aget_type(attr.get())), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type.get());
  bool ok = false;
  for (H5T_class_t w : want) ok = ok || (cls == w);
  if (!ok) fail(label, std::string("expected ") + want_text + ", found " + class_name(cls));
  Handle space(PSCR_H5_CHECK(H5Aget_space(attr.get())), H5Sclose);
  const auto dims = extent(space.get());
  std::size_t count = 1;
  if (dims)
    for (hsize_t d : *dims) count *= d;
  if (!dims || count != 1)
    fail(label, std::string("expected a single value (") + want_text + "), found shape " +
                    (dims ? shape_text(*dims) : std::string("null")));
  return attr;
}

std::string FileReader::string_attribute(const std::string& object, const std::string& name) const {
  Handle attr = open_attribute(object, name, {H5T_STRING}, "a string");
  Handle ftype(PSCR_H5_CHECK(H5Aget_type(attr.get())), H5Tclose);
  if (PSCR_H5_CHECK(H5Tis_variable_str(ftype.get())) > 0) {
    Handle mem = copy_type(H5T_C_S1);
    PSCR_H5_CHECK(H5Tset_size(mem.get(), H5T_VARIABLE));
    PSCR_H5_CHECK(H5Tset_cset(mem.get(), H5Tget_cset(ftype.get())));
    char* raw = nullptr;
    PSCR_H5_CHECK(H5Aread(attr.get(), mem.get(), &raw));
    std::string value = raw ? raw : "";
    H5free_memory(raw);
    return value;
  }
  const std::size_t size = H5Tget_size(ftype.get());
  if (size == 0) PSCR_H5_FAIL("H5Tget_size");
  Handle mem = copy_type(ftype.get());
  std::string buffer(size, '\0');
  PSCR_H5_CHECK(H5Aread(attr.get(), mem.get(), buffer.data()));
  buffer.resize(std::strlen(buffer.c_str()));
  if (H5Tget_strpad(ftype.get()) == H5T_STR_SPACEPAD)
    while (!buffer.empty() && buffer.back() == ' ') buffer.pop_back();
  return buffer;
}

std::optional<std::string> FileReader::optional_string_attribute(const std::string& object,
                                                                 const std::string& name) const {
  if (!has_attribute(object, name)) return std::nullopt;
  return string_attribute(object, name);
}

std::int64_t FileReader::integer_attribute(const std::string& object,
                                           const std::string& name) const {
  Handle attr = open_attribute(object, name, {H5T_INTEGER}, "an integer");
  std::int64_t value = 0;
  PSCR_H5_CHECK(H5Aread(attr.get(), H5T_NATIVE_INT64, &value));
  return value;
}

std::uint64_t FileReader::unsigned_attribute(const std::string& object,
                                             const std::string& name) const {
  Handle attr = open_attribute(object, name, {H5T_INTEGER}, "an unsigned integer");
  std::uint64_t value = 0;
  PSCR_H5_CHECK(H5Aread(attr.get(), H5T_NATIVE_UINT64, &value));
  return value;
}

double FileReader::float_attribute(const std::string& object, const std::string& name) const {
  Handle attr = open_attribute(object, name, {H5T_FLOAT, H5T_INTEGER}, "a number");
  double value = 0;
  PSCR_H5_CHECK(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &value));
  if (!std::isfinite(value)) {
    std::ostringstream v;
    v << value;
    fail(attribute_label(object, name), "expected a finite number, found " + v.str());
  }
  return value;
}

void FileReader::check_format(const std::string& format, std::int64_t version) const {
  if (const auto found = optional_string_attribute("/", "format"); found && *found != format)
    fail(attribute_label("/", "format"), "expected \"" + format + "\", found \"" + *found + "\"");
  if (!has_attribute("/", "format_version"))
    fail(attribute_label("/", "format_version"), "missing; expected the integer " +
                                                     std::to_string(version) + " (is this a pscr " +
                                                     kind_ + " file?)");
  const std::int64_t found = integer_attribute("/", "format_version");
  if (found != version)
    fail(attribute_label("/", "format_version"), "unknown format version " + std::to_string(found) +
                                                     "; this pscr reads version " +
                                                     std::to_string(version));
}

// ----------------------------------------------------------------------------------------------
// FileWriter

void FileWriter::write_durably(const std::vector<char>& image) const {
  const auto fail = [&](const char* what) {
    output_error(path_, std::string(what) + " the temporary file: " + std::strerror(errno));
  };
  const int fd = ::open(temp_path_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) fail("cannot open");
  const auto close_and_fail = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    errno = err;
    fail(what);
  };
  for (std::size_t done = 0; done < image.size();) {
    const ssize_t n = ::write(fd, image.data() + done, image.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;
    if (n <= 0) close_and_fail("cannot write");
    done += static_cast<std::size_t>(n);
  }
  // Durable before the name points at it (commit).
  if (::fsync(fd) != 0) close_and_fail("cannot flush");
  if (::close(fd) != 0) fail("cannot close");
}

FileWriter::FileWriter(const std::string& path, bool force, std::size_t expected_bytes)
    : path_(path), force_(force) {
  io::check_writable(path, force);

  const std::string dir = parent_directory(path);
  std::random_device entropy;
  std::mt19937_64 gen((static_cast<std::uint64_t>(entropy()) << 32) ^ entropy());
  for (int attempt = 0;; ++attempt) {
    std::ostringstream name;
    name << dir << "/." << base_name(path) << ".tmp-" << ::getpid() << "-" << std::hex << gen();
    const int fd = ::open(name.str().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      temp_path_ = name.str();
      break;
    }
    if (errno != EEXIST || attempt > 100)
      output_error(
          path, "cannot create a temporary file in directory " + dir + ": " + std::strerror(errno));
  }
  try {
    Handle fapl(PSCR_H5_CHECK(H5Pcreate(H5P_FILE_ACCESS)), H5Pclose);
    // The core driver assembles the file in memory, without a backing store: commit() writes its
    // image to the temporary file itself. HDF5 never writes to disk, so none of its writes can
    // fail half way: HDF5 1.10 crashes at exit after a failed write of the sec2 driver (disk
    // full), and when the core driver's own write-back fails at close, the file stays open and
    // its image is never freed (found by LeakSanitizer: scripts/sanitize.sh). Growing by the
    // expected size avoids repeated reallocations.
    const std::size_t increment =
        std::max<std::size_t>(std::size_t(1) << 20, expected_bytes + (std::size_t(1) << 16));
    PSCR_H5_CHECK(H5Pset_fapl_core(fapl.get(), increment, 0));
    file_ =
        Handle(PSCR_H5_CHECK(H5Fcreate(temp_path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get())),
               H5Fclose);
  } catch (...) {
    ::unlink(temp_path_.c_str());
    throw;
  }
}

FileWriter::~FileWriter() {
  if (committed_) return;
  file_ = Handle();
  ::unlink(temp_path_.c_str());
}

void FileWriter::create_group(const std::string& name) {
  Handle g(
      PSCR_H5_CHECK(H5Gcreate2(file_.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)),
      H5Gclose);
  g.close();
}

void FileWriter::write_dataset(const std::string& name, const std::vector<hsize_t>& dims,
                               hid_t file_type, hid_t memory_type, const void* data) {
  Handle space = make_dataspace(dims);
  Handle ds(PSCR_H5_CHECK(H5Dcreate2(file_.get(), name.c_str(), file_type, space.get(), H5P_DEFAULT,
                                     H5P_DEFAULT, H5P_DEFAULT)),
            H5Dclose);
  hsize_t count = 1;
  for (hsize_t d : dims) count *= d;
  if (count > 0)
    PSCR_H5_CHECK(H5Dwrite(ds.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
  ds.close();
}

void FileWriter::write_real(const std::string& name, const std::vector<hsize_t>& dims,
                            const double* data) {
  write_dataset(name, dims, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data);
}

void FileWriter::write_complex(const std::string& name, const std::vector<hsize_t>& dims,
                               const std::complex<double>* data) {
  Handle file_type = complex_file_type();
  Handle memory_type = complex_memory_type();
  write_dataset(name, dims, file_type.get(), memory_type.get(), data);
}

void FileWriter::write_integers(const std::string& name, const std::vector<std::int64_t>& values) {
  write_dataset(name, {static_cast<hsize_t>(values.size())}, H5T_STD_I64LE, H5T_NATIVE_INT64,
                values.data());
}

void FileWriter::write_attribute(const std::string& object, const std::string& name,
                                 hid_t file_type, hid_t memory_type, const void* data) {
  Handle space = make_dataspace({});
  Handle attr(PSCR_H5_CHECK(H5Acreate_by_name(file_.get(), object.c_str(), name.c_str(), file_type,
                                              space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)),
              H5Aclose);
  PSCR_H5_CHECK(H5Awrite(attr.get(), memory_type, data));
  attr.close();
}

void FileWriter::string_attribute(const std::string& object, const std::string& name,
                                  const std::string& value) {
  Handle type = string_type();
  const char* text = value.c_str();
  write_attribute(object, name, type.get(), type.get(), &text);
}

void FileWriter::integer_attribute(const std::string& object, const std::string& name,
                                   std::int64_t value) {
  write_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

void FileWriter::unsigned_attribute(const std::string& object, const std::string& name,
                                    std::uint64_t value) {
  write_attribute(object, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

void FileWriter::float_attribute(const std::string& object, const std::string& name, double value) {
  write_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

void FileWriter::commit() {
  {
    // The file's image (H5Fget_file_image: what HDF5 would write), then the in-memory file closed:
    // no I/O, so the close cannot fail for want of space.
    PSCR_H5_CHECK(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL));
    const ssize_t size = PSCR_H5_CHECK(H5Fget_file_image(file_.get(), nullptr, 0));
    std::vector<char> image(static_cast<std::size_t>(size));
    PSCR_H5_CHECK(H5Fget_file_image(file_.get(), image.data(), image.size()));
    file_.close();
    write_durably(image);
  }
  if (!force_) {
    // link() fails with EEXIST if the target appeared meanwhile: no-clobber without a race.
    if (::link(temp_path_.c_str(), path_.c_str()) == 0) {
      ::unlink(temp_path_.c_str());
      committed_ = true;
      return;
    }
    if (errno == EEXIST) output_error(path_, "the file exists; use --force to overwrite it");
    // The file system has no hard links: check, then rename.
    if (path_exists(path_)) output_error(path_, "the file exists; use --force to overwrite it");
  }
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0)
    output_error(path_,
                 std::string("cannot move the temporary file into place: ") + std::strerror(errno));
  committed_ = true;
}

}  // namespace pscr::io::detail

namespace pscr::io {

using namespace detail;

void check_writable(const std::string& path, bool force) {
  if (path.empty()) throw OutputError("output file: expected a path, found an empty string");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    output_error(path, "expected a file path, found a directory");
  if (!force && path_exists(path))
    output_error(path, "the file exists; use --force to overwrite it");
  const std::string dir = parent_directory(path);
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    output_error(path, "the directory " + dir + " does not exist or is not writable");
}

FileFormat file_format(const std::string& path) {
  const ErrorPrintingOff quiet;
  const FileReader r(path, "pscr");
  const auto format = r.optional_string_attribute("/", "format");
  if (!format || *format == "pscr-problem") return FileFormat::problem;
  if (*format == "pscr-solution") return FileFormat::solution;
  if (*format == "pscr-eigen-data") return FileFormat::eigen_data;
  r.fail("attribute `format`",
         "expected \"pscr-problem\", \"pscr-solution\" or \"pscr-eigen-data\", found \"" + *format +
             "\"");
}

}  // namespace pscr::io
