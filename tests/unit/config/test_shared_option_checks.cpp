// val and predict take train's imgsz, batch, workers, ... without building a TrainConfig: the
// same range checks must reach them (val took imgsz=100, batch=0 and conf=2 without a word), and
// their post-processing options (conf, iou, max_det) are checked once for both.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/config/train_config.hpp"
#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/error.hpp"
#include "../error_of.hpp"

using namespace libreyolo::core::config;
using libreyolo::test::error_of;

namespace {

ResolvedOptions resolved(const OptionTable& table, const std::vector<std::string>& args) {
  return resolve_options(table, read_user_options(args, table), "no family", {});
}

std::string shared_error(const OptionTable& table, const std::vector<std::string>& args) {
  const auto options = resolved(table, args);
  return error_of([&] { check_shared_train_options(options); });
}

std::string nms_error(const OptionTable& table, const std::vector<std::string>& args) {
  const auto options = resolved(table, args);
  return error_of([&] { check_nms_options(options); });
}

}  // namespace

TEST_CASE("val's and predict's shared options pass train's range checks") {
  for (const auto& table : {val_options(), predict_options()}) {
    CHECK(shared_error(table, {"imgsz=100"}).find("imgsz=100 is out of range: expected a multiple of 32") != std::string::npos);
    CHECK(shared_error(table, {"imgsz=640"}) == "(no error)");
    CHECK(shared_error(table, {}) == "(no error)");  // the defaults pass
  }
  const auto val = val_options();
  CHECK(shared_error(val, {"batch=0"}).find("batch=0 is out of range") != std::string::npos);
  CHECK(shared_error(val, {"workers=-1"}).find("workers=-1 is out of range") != std::string::npos);
  CHECK(shared_error(val, {"batch=8", "workers=2"}) == "(no error)");
}

TEST_CASE("conf and iou are fractions and max_det keeps at least one detection, for val and predict") {
  for (const auto& table : {val_options(), predict_options()}) {
    CHECK(nms_error(table, {}) == "(no error)");
    CHECK(nms_error(table, {"conf=2"}).find("conf=2 is out of range: it is a fraction: from 0 to 1") != std::string::npos);
    CHECK(nms_error(table, {"iou=-0.1"}).find("iou=-0.1 is out of range") != std::string::npos);
    CHECK(nms_error(table, {"max_det=0"}).find("max_det=0 keeps no detection") != std::string::npos);
    CHECK(nms_error(table, {"conf=0", "iou=1", "max_det=1"}) == "(no error)");
  }
}
