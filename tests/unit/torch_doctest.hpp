#pragma once
// Include this instead of <doctest/doctest.h> in tests that use LibTorch. Debian's LibTorch
// pulls in glog, whose CHECK macros abort the process; doctest's must win.

#include <torch/torch.h>

#undef CHECK
#undef CHECK_EQ
#undef CHECK_NE
#undef CHECK_LT
#undef CHECK_LE
#undef CHECK_GT
#undef CHECK_GE
#undef CHECK_NOTNULL
#include <doctest/doctest.h>
