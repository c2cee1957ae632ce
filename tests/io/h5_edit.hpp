#pragma once
/// @file For the bad-input tests: edits an HDF5 file in place with the plain HDF5 C API (remove a
/// dataset or attribute, put one of another shape, dtype or value in its place). Test code only:
/// any failure throws std::runtime_error.

#include <hdf5.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace pscr::testing {

class H5Edit {
 public:
  /// Opens `path` read-write, or creates it (truncating) when `create`.
  explicit H5Edit(const std::string& path, bool create = false) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    file_ = create ? H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                   : H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    check(file_, "open");
  }
  ~H5Edit() { H5Fclose(file_); }
  H5Edit(const H5Edit&) = delete;
  H5Edit& operator=(const H5Edit&) = delete;

  void remove(const std::string& name) { check(H5Ldelete(file_, name.c_str(), H5P_DEFAULT), name); }

  /// Replaces (or creates) dataset `name` with `values` of shape `dims` as `file_type`
  /// (from double; empty dims = scalar).
  void put_doubles(const std::string& name, const std::vector<hsize_t>& dims,
                   const std::vector<double>& values, hid_t file_type = H5T_IEEE_F64LE) {
    put(name, dims, file_type, H5T_NATIVE_DOUBLE, values.data());
  }
  /// Complex values as h5py's compound {r, i} with member names `r`, `i` (overridable).
  void put_complex(const std::string& name, const std::vector<hsize_t>& dims,
                   const std::vector<double>& interleaved, const char* r = "r",
                   const char* i = "i") {
    const hid_t t = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(t, r, 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(t, i, 8, H5T_NATIVE_DOUBLE);
    put(name, dims, t, t, interleaved.data());
    H5Tclose(t);
  }
  void put_strings(const std::string& name, const std::vector<hsize_t>& dims,
                   const std::vector<std::string>& values) {
    std::vector<const char*> ptrs;
    for (const auto& v : values) ptrs.push_back(v.c_str());
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    put(name, dims, t, t, ptrs.data());
    H5Tclose(t);
  }
  /// An enum dataset like numpy's bool in h5py.
  void put_bools(const std::string& name, const std::vector<hsize_t>& dims,
                 const std::vector<std::int8_t>& values) {
    const hid_t t = H5Tenum_create(H5T_NATIVE_INT8);
    std::int8_t v0 = 0, v1 = 1;
    H5Tenum_insert(t, "FALSE", &v0);
    H5Tenum_insert(t, "TRUE", &v1);
    put(name, dims, t, t, values.data());
    H5Tclose(t);
  }
  /// A dataset with a null dataspace (h5py.Empty).
  void put_null(const std::string& name) {
    erase_if_present(name);
    const hid_t s = H5Screate(H5S_NULL);
    const hid_t d =
        H5Dcreate2(file_, name.c_str(), H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(d, name);
    H5Dclose(d);
    H5Sclose(s);
  }
  void put_group(const std::string& name) {
    erase_if_present(name);
    const hid_t g = H5Gcreate2(file_, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(g, name);
    H5Gclose(g);
  }

  void remove_attribute(const std::string& object, const std::string& name) {
    check(H5Adelete_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT), name);
  }
  void put_int_attribute(const std::string& object, const std::string& name, std::int64_t v) {
    put_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
  }
  void put_double_attribute(const std::string& object, const std::string& name, double v) {
    put_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
  }
  void put_string_attribute(const std::string& object, const std::string& name,
                            const std::string& v) {
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    const char* p = v.c_str();
    put_attribute(object, name, t, t, &p);
    H5Tclose(t);
  }
  /// A fixed-length, NUL-padded string attribute (numpy bytes in h5py).
  void put_fixed_string_attribute(const std::string& object, const std::string& name,
                                  const std::string& v) {
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, v.size());
    H5Tset_strpad(t, H5T_STR_NULLPAD);
    put_attribute(object, name, t, t, v.data());
    H5Tclose(t);
  }

 private:
  static void check(long long status, const std::string& what) {
    if (status < 0) throw std::runtime_error("H5Edit failed on " + what);
  }
  void erase_if_present(const std::string& name) {
    if (H5Lexists(file_, name.c_str(), H5P_DEFAULT) > 0) remove(name);
  }
  void put(const std::string& name, const std::vector<hsize_t>& dims, hid_t file_type,
           hid_t mem_type, const void* data) {
    erase_if_present(name);
    const hid_t s = dims.empty()
                        ? H5Screate(H5S_SCALAR)
                        : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t d =
        H5Dcreate2(file_, name.c_str(), file_type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(d, name);
    hsize_t count = 1;
    for (hsize_t n : dims) count *= n;
    if (count > 0) check(H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
    H5Dclose(d);
    H5Sclose(s);
  }
  void put_attribute(const std::string& object, const std::string& name, hid_t file_type,
                     hid_t mem_type, const void* data) {
    if (H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) > 0)
      remove_attribute(object, name);
    const hid_t s = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate_by_name(file_, object.c_str(), name.c_str(), file_type, s,
                                      H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(a, name);
    check(H5Awrite(a, mem_type, data), name);
    H5Aclose(a);
    H5Sclose(s);
  }

  hid_t file_ = -1;
};

}  // namespace pscr::testing
