#pragma once
// metalsim's host API: metal-cpp's names and call order, RAII through NS::SharedPtr.
// Host code written for metal-cpp ports almost line for line: include this instead of
// <Metal/Metal.hpp>. See docs/host_api.md.
#include "metalsim/Foundation/NSArray.hpp"
#include "metalsim/Foundation/NSObject.hpp"
#include "metalsim/Foundation/NSRange.hpp"
#include "metalsim/Metal/MTLArgument.hpp"
#include "metalsim/Metal/MTLBuffer.hpp"
#include "metalsim/Metal/MTLCommandBuffer.hpp"
#include "metalsim/Metal/MTLCommandQueue.hpp"
#include "metalsim/Metal/MTLComputeCommandEncoder.hpp"
#include "metalsim/Metal/MTLComputePipeline.hpp"
#include "metalsim/Metal/MTLDevice.hpp"
#include "metalsim/Metal/MTLIndirectCommandBuffer.hpp"
#include "metalsim/Metal/MTLLibrary.hpp"
#include "metalsim/Metal/MTLLogState.hpp"
#include "metalsim/Metal/MTLPixelFormat.hpp"
#include "metalsim/Metal/MTLResource.hpp"
#include "metalsim/Metal/MTLSampler.hpp"
#include "metalsim/Metal/MTLTexture.hpp"
#include "metalsim/Metal/MTLTypes.hpp"
