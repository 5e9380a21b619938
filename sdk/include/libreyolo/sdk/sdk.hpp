#pragma once
// Everything a family author needs, in one include.

#include "libreyolo/sdk/augmentation.hpp"
#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/compat.hpp"
#include "libreyolo/sdk/criterion.hpp"
#include "libreyolo/sdk/detector.hpp"
#include "libreyolo/sdk/epoch_schedule.hpp"
#include "libreyolo/sdk/family.hpp"
#include "libreyolo/sdk/frozen_batch_norm.hpp"
#include "libreyolo/sdk/log.hpp"
#include "libreyolo/sdk/losses/losses.hpp"
#include "libreyolo/sdk/param_group_rules.hpp"
#include "libreyolo/sdk/range.hpp"
#include "libreyolo/sdk/recipe.hpp"
#include "libreyolo/sdk/registration.hpp"
#include "libreyolo/sdk/targets.hpp"
#include "libreyolo/sdk/version.hpp"
