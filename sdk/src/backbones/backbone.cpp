#include "libreyolo/sdk/backbones/backbone.hpp"

namespace libreyolo::sdk::backbones {

MultiScaleBackbone::~MultiScaleBackbone() = default;

}  // namespace libreyolo::sdk::backbones
