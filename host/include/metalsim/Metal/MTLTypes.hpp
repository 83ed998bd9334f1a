#pragma once
#include <cstdint>

#include "metalsim/Foundation/NSObject.hpp"

namespace MTL {

struct Size {
  NS::UInteger width = 1, height = 1, depth = 1;
  Size() = default;
  Size(NS::UInteger w, NS::UInteger h, NS::UInteger d) : width(w), height(h), depth(d) {}
  static Size Make(NS::UInteger w, NS::UInteger h, NS::UInteger d) { return {w, h, d}; }
};

struct Origin {
  NS::UInteger x = 0, y = 0, z = 0;
  Origin() = default;
  Origin(NS::UInteger x_, NS::UInteger y_, NS::UInteger z_) : x(x_), y(y_), z(z_) {}
  static Origin Make(NS::UInteger x, NS::UInteger y, NS::UInteger z) { return {x, y, z}; }
};

// A box of texels: textures' replaceRegion and getBytes.
struct Region {
  Origin origin;
  Size size;
  Region() = default;
  Region(NS::UInteger x, NS::UInteger width) : origin(x, 0, 0), size(width, 1, 1) {}
  Region(NS::UInteger x, NS::UInteger y, NS::UInteger width, NS::UInteger height)
      : origin(x, y, 0), size(width, height, 1) {}
  static Region Make1D(NS::UInteger x, NS::UInteger width) { return {x, width}; }
  static Region Make2D(NS::UInteger x, NS::UInteger y, NS::UInteger width, NS::UInteger height) {
    return {x, y, width, height};
  }
};

// Options combine with |, so, as metal-cpp's (_MTL_OPTIONS), the type is the integer:
// MTL::ResourceStorageModeShared | other options passes where a ResourceOptions is taken.
using ResourceOptions = NS::UInteger;
enum : NS::UInteger {
  ResourceStorageModeShared = 0,
  ResourceCPUCacheModeDefaultCache = 0,
  ResourceStorageModeManaged = 1 << 4,
  ResourceStorageModePrivate = 2 << 4,
  // Whether Metal orders a resource's uses across command buffers for you (MTLResource.hpp).
  ResourceHazardTrackingModeDefault = 0,
  ResourceHazardTrackingModeUntracked = 1 << 8,
  ResourceHazardTrackingModeTracked = 2 << 8,
};

enum StorageMode : NS::UInteger {
  StorageModeShared = 0,
  StorageModeManaged = 1,
  StorageModePrivate = 2,
  StorageModeMemoryless = 3,
};

// The storage mode that `options` ask for (bits 4-7, as Metal's MTLResourceStorageModeShift).
inline StorageMode storageModeOf(ResourceOptions options) {
  return StorageMode((NS::UInteger(options) >> 4) & 0xf);
}

enum HazardTrackingMode : NS::UInteger {
  HazardTrackingModeDefault = 0,
  HazardTrackingModeUntracked = 1,
  HazardTrackingModeTracked = 2,
};

// The hazard tracking mode that `options` ask for; Default resolves to `fallback`.
inline HazardTrackingMode hazardTrackingModeOf(ResourceOptions options,
                                               HazardTrackingMode fallback) {
  const NS::UInteger mode = (NS::UInteger(options) >> 8) & 3;
  return mode == 0 ? fallback : HazardTrackingMode(mode);
}

enum ResourceUsage : NS::UInteger {
  ResourceUsageRead = 1 << 0,
  ResourceUsageWrite = 1 << 1,
};

enum DataType : NS::UInteger {
  DataTypeNone = 0,
  DataTypeFloat = 3,
  DataTypeFloat2 = 4,
  DataTypeFloat3 = 5,
  DataTypeFloat4 = 6,
  DataTypeHalf = 16,
  DataTypeHalf2 = 17,
  DataTypeHalf3 = 18,
  DataTypeHalf4 = 19,
  DataTypeInt = 29,
  DataTypeInt2 = 30,
  DataTypeInt3 = 31,
  DataTypeInt4 = 32,
  DataTypeUInt = 33,
  DataTypeUInt2 = 34,
  DataTypeUInt3 = 35,
  DataTypeUInt4 = 36,
  DataTypeShort = 37,
  DataTypeUShort = 41,
  DataTypeChar = 45,
  DataTypeUChar = 49,
  DataTypeBool = 53,
  DataTypeLong = 81,
  DataTypeULong = 85,
};

// Bytes of one value of `type`; 0 for types metalsim does not know.
NS::UInteger dataTypeSize(DataType type);

}  // namespace MTL
