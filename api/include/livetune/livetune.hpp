#pragma once
// Everything an application needs: #include <livetune/livetune.hpp>
#include "livetune/error.hpp"
#include "livetune/log.hpp"
#include "livetune/runtime.hpp"
#include "livetune/tensor.hpp"
