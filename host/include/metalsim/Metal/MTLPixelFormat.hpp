#pragma once
// MTL::PixelFormat: Metal's numbers for the formats metalsim's textures support
// (docs/textures.md lists each one's storage and conversion).
#include "metalsim/Foundation/NSObject.hpp"

namespace MTL {

enum PixelFormat : NS::UInteger {
  PixelFormatInvalid = 0,
  PixelFormatR8Unorm = 10,
  PixelFormatR8Snorm = 12,
  PixelFormatR8Uint = 13,
  PixelFormatR8Sint = 14,
  PixelFormatR16Unorm = 20,
  PixelFormatR16Snorm = 22,
  PixelFormatR16Uint = 23,
  PixelFormatR16Sint = 24,
  PixelFormatR16Float = 25,
  PixelFormatRG8Unorm = 30,
  PixelFormatRG8Snorm = 32,
  PixelFormatRG8Uint = 33,
  PixelFormatRG8Sint = 34,
  PixelFormatR32Uint = 53,
  PixelFormatR32Sint = 54,
  PixelFormatR32Float = 55,
  PixelFormatRG16Unorm = 60,
  PixelFormatRG16Snorm = 62,
  PixelFormatRG16Uint = 63,
  PixelFormatRG16Sint = 64,
  PixelFormatRG16Float = 65,
  PixelFormatRGBA8Unorm = 70,
  PixelFormatRGBA8Snorm = 72,
  PixelFormatRGBA8Uint = 73,
  PixelFormatRGBA8Sint = 74,
  PixelFormatBGRA8Unorm = 80,
  PixelFormatRG32Uint = 103,
  PixelFormatRG32Sint = 104,
  PixelFormatRG32Float = 105,
  PixelFormatRGBA16Unorm = 110,
  PixelFormatRGBA16Snorm = 112,
  PixelFormatRGBA16Uint = 113,
  PixelFormatRGBA16Sint = 114,
  PixelFormatRGBA16Float = 115,
  PixelFormatRGBA32Uint = 123,
  PixelFormatRGBA32Sint = 124,
  PixelFormatRGBA32Float = 125,
};

}  // namespace MTL
