#pragma once
// The trainer's one call: a TrainingProfiler for this run when profile=true, or null (profile
// off, or a rank other than 0 of a distributed run: rank 0 alone is measured). Fills the
// profile's config and environment from the run.
//
// It lives in trainer/ because it reads trainer types (config::TrainConfig): the profiler itself knows
// nothing of the trainer. It keeps the profiler's namespace, since what it makes is a profiler.

#include <c10/core/Device.h>

#include <filesystem>
#include <memory>
#include <string>

#include "libreyolo/core/profiler/training_profiler.hpp"
#include "libreyolo/core/config/train_config.hpp"

namespace libreyolo::core::profiler {

// `model` names family and size (yolo9s); artifacts go to <run_root>/prof.
std::unique_ptr<TrainingProfiler> make_training_profiler(const config::TrainConfig& config, const std::string& model,
                                                         const c10::Device& device,
                                                         const std::filesystem::path& run_root, int rank,
                                                         int world_size);

}  // namespace libreyolo::core::profiler
