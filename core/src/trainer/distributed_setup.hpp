#pragma once
// The distributed parts of building a session (docs/design.md#multi-gpu-training), kept out of session.cpp.
// Private to core/src/trainer/.

#include "session.hpp"

namespace libreyolo::core::trainer {

// After the model is on its device: rank 0's weights on every rank, synchronized BatchNorm when
// sync_bn is on (or docs/design.md's warning when it is off and the per-rank batch is small), and the
// gradient synchronizer.
void prepare_replica(Session& session);

}  // namespace libreyolo::core::trainer
