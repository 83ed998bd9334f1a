#include "host/cli/case_file_data.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "host/cli/block_fill.h"
#include "kernels/spec/inputs.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::cli {
namespace {

using spec::Params;

// An integer expression of the case file's field `path`; its errors name the field.
int64_t integer_at(const Expression& e, const Scope& s, const std::string& path) {
  try {
    return e.integer(s);
  } catch (const ExpressionError& x) {
    throw ExpressionError(path + ": " + x.what());
  }
}

// "grid", "threads" or "threadgroup", with the reference's prefix where it is the reference's.
MTL::Size size3(const std::array<Expression, 3>& e, const Scope& s, const std::string& path) {
  auto at = [&](size_t i) {
    return NS::UInteger(integer_at(e[i], s, path + "[" + std::to_string(i) + "]"));
  };
  return {at(0), at(1), at(2)};
}

// A binding's offset, checked against the bytes of the buffer it binds.
size_t offset_into(const Expression& offset, size_t bytes, const std::string& path,
                   const Scope& s) {
  const int64_t n = integer_at(offset, s, path + ".offset");
  if (n < 0 || uint64_t(n) > bytes)
    throw CaseFileError(path + ".offset: " + std::to_string(n) + " is outside the buffer's " +
                        std::to_string(bytes) + " bytes (" + offset.text() + ")");
  return size_t(n);
}

}  // namespace

Shape evaluate_shape(const CaseFile& f, const Params& p, const Dispatch& d) {
  const Scope scope = case_scope(f, p);
  Shape s;
  for (const BufferDecl& b : f.buffers) {
    const int64_t n = integer_at(b.count, scope, b.path + ".count");
    if (n < 1)
      throw CaseFileError(b.path + ".count: buffer '" + b.name + "' would have " +
                          std::to_string(n) + " elements (" + b.count.text() + ")");
    s.counts.push_back(size_t(n));
    s.offsets.push_back(offset_into(b.offset, size_t(n) * element_size(b.type), b.path, scope));
  }
  for (const AliasDecl& a : f.aliases) {
    const BufferDecl& target = f.buffers[a.buffer];
    const size_t bytes = s.counts[a.buffer] * element_size(target.type);
    s.offsets.push_back(offset_into(a.offset, bytes, a.path, scope));
  }
  for (const BytesDecl& b : f.bytes) s.bytes.push_back(pack_struct(b.fields, scope));
  for (size_t i = 0; i < f.threadgroup_memory.size(); ++i) {
    const ThreadgroupMemoryDecl& t = f.threadgroup_memory[i];
    const std::string path = "threadgroup_memory[" + std::to_string(i) + "].bytes";
    const int64_t n = integer_at(t.bytes, scope, path);
    if (n < 0)
      throw CaseFileError(path + ": threadgroup(" + std::to_string(t.index) + ") would have " +
                          std::to_string(n) + " bytes");
    s.threadgroup_lengths.push_back(uint32_t(spec::tg_bytes(size_t(n))));
  }
  const std::string prefix = &d == &f.dispatch ? "" : "reference.";
  s.grid = size3(d.grid, scope, prefix + (d.threads ? "threads" : "grid"));
  s.threadgroup = size3(d.threadgroup, scope, prefix + "threadgroup");
  return s;
}

Bytes initial_contents(const BufferDecl& b, size_t count, uint64_t seed) {
  Bytes out(count * element_size(b.type));
  with_type(b.type, [&](auto tag) {
    using T = decltype(tag);
    T* data = reinterpret_cast<T*>(out.data());
    if (!b.fill) return spec::poison(data, count);
    const Fill& fill = *b.fill;
    spec::InputGenerator gen(seed * 0x9e3779b97f4a7c15ull + b.index + 1);
    if (fill.kind == Fill::Kind::blocks) {
      if (count % fill.blocks->bytes != 0)
        throw CaseFileError(b.path + ".count: " + std::to_string(count) + " bytes are not whole " +
                            std::string(fill.blocks->name) + " blocks (" +
                            std::to_string(fill.blocks->bytes) + " bytes each)");
      return fill_blocks(*fill.blocks, out.data(), out.size(), gen);
    }
    for (size_t i = 0; i < count && fill.kind != Fill::Kind::file; ++i) {
      if (fill.kind == Fill::Kind::constant) data[i] = T(fill.value);
      else if (fill.kind == Fill::Kind::range) data[i] = T(fill.start + double(i) * fill.step);
      else if constexpr (std::is_integral_v<T>)
        data[i] = T(gen.integer(int64_t(fill.low), int64_t(fill.high)));
      else data[i] = T(gen.uniform(fill.low, fill.high));
    }
  });
  if (b.fill && b.fill->kind == Fill::Kind::file) {
    std::ifstream in(b.fill->path, std::ios::binary);
    in.read(reinterpret_cast<char*>(out.data()), std::streamsize(out.size()));
    if (size_t(in.gcount()) != out.size())
      throw CaseFileError("buffer '" + b.name + "': " + b.fill->path + " has " +
                          std::to_string(in.gcount()) + " bytes, the buffer " +
                          std::to_string(out.size()));
  }
  return out;
}

std::vector<double> as_doubles(const BufferDecl& b, const Bytes& bytes, size_t count) {
  std::vector<double> out(count);
  with_type(b.type, [&](auto tag) {
    using T = decltype(tag);
    const T* p = reinterpret_cast<const T*>(bytes.data());
    for (size_t i = 0; i < count; ++i) out[i] = double(p[i]);
  });
  return out;
}

std::string format_value(ElementType type, const void* data, size_t i) {
  return with_type(type, [&](auto tag) -> std::string {
    using T = decltype(tag);
    const T v = static_cast<const T*>(data)[i];
    if constexpr (std::is_integral_v<T>) return std::to_string(v);
    else {
      char text[32];
      std::snprintf(text, sizeof text, "%.9g", double(v));
      return text;
    }
  });
}

std::string first_difference(const BufferDecl& b, const void* x, const void* y, size_t count) {
  return with_type(b.type, [&](auto tag) -> std::string {
    using T = decltype(tag);
    const auto* p = static_cast<const T*>(x);
    const auto* q = static_cast<const T*>(y);
    for (size_t i = 0; i < count; ++i)
      if (std::memcmp(&p[i], &q[i], sizeof(T)) != 0)
        return b.name + "[" + std::to_string(i) + "] = " + format_value(b.type, p, i) +
               " against " + format_value(b.type, q, i);
    return {};
  });
}

spec::Tolerance default_tolerance(ElementType t) {
  if (t == ElementType::f32) return {0, 1e-5, "float outputs: relative 1e-5 (the default)"};
  if (t == ElementType::f16) return {0, 2e-3, "half outputs: relative 2e-3 (the default)"};
  return {0, 0, "integer outputs: exact"};
}

}  // namespace metalsim::cli
