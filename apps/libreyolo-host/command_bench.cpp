// `libreyolo-host bench data|step|capture|fused|train`: the measurements docs/benchmarks.md quotes, as
// commands users can run on their own machines. Each prints a one-line summary and can write
// JSON (json=FILE).
//
//   bench data   the data loader alone (scan, decode-once cache, mosaic augmentation, batching),
//                steady-state images/s after warm-up; device=0 includes the pinned H2D upload.
//   bench step   one real augmented batch replayed through the full training step (forward,
//                loss, backward, optimizer, EMA): fastest and median ms/step, images/s, memory,
//                and on CUDA the kernels per step and GPU busy time (Kineto).
//   bench capture  bench step twice from the same start, eager and with cuda_graph=true:
//                speedup, memory, and whether the loss trajectories and gradients agree.
//   bench fused  the same comparison between fused_kernels=off (measured for measured+ and measured- names) and
//                the given fused_kernels (both with the given cuda_graph), in one process so cuDNN
//                picks the same algorithms.
//   bench train  a real training run (a normal run folder); images/s excluding the first epoch;
//                with device=0,1 one worker per GPU as `train` starts them (the run's images/s).

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>

#include "commands.hpp"
#include "host_setup.hpp"
#include "rank_setup.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/data/cache/cache_mode.hpp"
#include "libreyolo/core/data/cache/image_cache.hpp"
#include "libreyolo/core/data/dataset/training_data.hpp"
#include "libreyolo/core/data/dataset/dataset_samples.hpp"
#include "libreyolo/core/data/loader/data_loader.hpp"
#include "libreyolo/core/device/device_choice.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/family_defaults.hpp"
#include "libreyolo/core/trainer/augmentation_plan.hpp"
#include "libreyolo/core/trainer/benchmarks.hpp"
#include "libreyolo/core/config/train_config.hpp"
#include "libreyolo/core/util/json_writer.hpp"
#include "libreyolo/core/util/machine_info.hpp"

namespace libreyolo::app {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchSetup {
  core::config::ResolvedOptions options;
  sdk::Recipe recipe;  // the family's (its augmentation pipelines); none without model=
  std::string family;
};

// Without model=: a mosaic pipeline of the SDK's transform defaults (a random-affine mosaic with
// pasted mixup, HSV, flip), so the loader's heaviest path is what gets measured.
sdk::Recipe default_augmentation() {
  namespace A = sdk::augment;
  sdk::Recipe recipe;
  recipe.augmentation = {{"mosaic", {A::Mosaic{}, A::Mixup{}, A::Letterbox{}, A::Hsv{}, A::Flip{}, A::FilterBoxes{}}}};
  return recipe;
}

BenchSetup resolve_bench(const Args& args) {
  const auto table = core::config::bench_options();
  auto user = core::config::read_user_options(args, table);
  apply_verbosity(user);
  BenchSetup setup;
  if (auto model = user.lookup("model"); model && !model->empty()) {
    auto registry = load_families(user);
    const auto name = registry.resolve_model_name(*model);
    setup.recipe = name.family->family->recipe(name.size);
    setup.family = name.family->info.name + name.size;
    setup.options = core::config::resolve_options(table, user, "family " + name.family->info.name + "'s recipe",
                                                  core::plugins::family_option_defaults(*name.family, name.size, table));
  } else {
    setup.recipe = default_augmentation();
    setup.options = core::config::resolve_options(table, user, "no family", {});
  }
  return setup;
}

// Writes a bench result as one JSON object to `file` (json=FILE); nothing when none was asked for.
void write_json(const std::string& file, const std::function<void(core::util::JsonWriter&)>& members) {
  if (file.empty()) return;
  std::ofstream out(file);
  {
    core::util::JsonWriter json(out);
    json.begin_object();
    members(json);
    json.end_object();
  }
  if (!out) throw core::Error("cannot write " + file, "the write failed", "check the path");
}

// A measure the device does not take (StepBenchmark's -1: memory and kernels on the CPU) is
// null, "not measured", never a number nobody measured.
core::util::JsonWriter& measured(core::util::JsonWriter& json, const char* name, double value) {
  return value < 0 ? json.key(name).null() : json.member_general(name, value);
}

// The fields of one step measurement, as members of the object being written.
void step_fields(core::util::JsonWriter& json, const core::trainer::StepBenchmark& r) {
  json.member("batch", r.batch)
      .member("imgsz", r.imgsz)
      .member("device", r.device)
      .member("cuda_graph", r.cuda_graph)
      .member_general("fastest_ms", r.fastest_ms)
      .member_general("median_ms", r.median_ms)
      .member_general("host_median_ms", r.host_median_ms)
      .member_general("images_per_second", r.images_per_second)
      .member_general("back_to_back_ms", r.back_to_back_ms);
  measured(json, "host_syncs_per_step", r.host_syncs_per_step);
  measured(json, "peak_memory_gb", r.peak_memory_gb);
  measured(json, "kernels_per_step", r.kernels_per_step);
  measured(json, "gpu_busy_ms", r.gpu_busy_ms);
  measured(json, "kernel_time_ms", r.kernel_time_ms);
  measured(json, "ops_per_step", r.ops_per_step);
  measured(json, "all_ops_per_step", r.all_ops_per_step);
  json.member("captures", r.captures)
      .member("replays", r.replays)
      .member("steps", r.steps)
      .member_general("graph_memory_gb", r.graph_memory_gb);
  json.key("top_kernels_ms").begin_array(true);  // kernel names are C++ signatures: quotes and all
  for (const auto& [name, ms] : r.top_kernels) json.begin_array().value(name).value_general(ms).end_array();
  json.end_array();
  json.key("idle_ms_by_gap_length").begin_object(true);
  const char* buckets[] = {"under_2us", "2_to_5us", "5_to_20us", "20_to_100us", "100us_or_more"};
  for (std::size_t i = 0; i < r.idle_ms_by_gap.size() && i < 5; ++i) json.member_general(buckets[i], r.idle_ms_by_gap[i]);
  json.end_object();
  json.key("host_phases_ms").begin_array();
  for (const auto& p : r.host_phases) {
    json.begin_object(true).member("phase", p.phase).member_general("host", p.host_ms).member_general("gpu_idle", p.gpu_idle_ms);
    measured(json, "ops", p.ops);
    for (const auto& [key, ops] : {std::pair{"top_ops", &p.top_ops}, std::pair{"slowest_ops", &p.slowest_ops}}) {
      json.key(key).begin_array(true);  // [name, calls, host ms] per step
      for (const auto& op : *ops) json.begin_array().value(op.name).value_general(op.calls).value_general(op.host_ms).end_array();
      json.end_array();
    }
    json.end_object();
  }
  json.end_array();
  json.key("idle_gaps_us").begin_array();
  for (const auto& gap : r.idle_gaps) {
    json.begin_object(true).member_general("length", gap.length_us).member("before", gap.before).member("after", gap.after);
    json.end_object();
  }
  json.end_array();
  json.key("losses").begin_array(true);
  for (const double loss : r.losses) json.value_general(loss);
  json.end_array();
}

int bench_data(const Args& args) {
  const auto setup = resolve_bench(args);
  const auto config = core::config::make_train_config(setup.options);
  const auto steps = setup.options.get_int("steps");
  const auto warmup = setup.options.get_int("warmup");
  if (steps < 1 || warmup < 0) throw core::Error("steps and warmup must be positive", "nothing to time", "pass steps=100");
  const auto device = core::device::choose_device(config.device == "auto" ? "cpu" : config.device);

  const auto build_start = Clock::now();
  const auto data = core::data::load_training_data(
      {config.data, bundled_datasets_dir(), config.imgsz, core::data::parse_cache_mode(config.cache), {"train"}});
  const auto& train = data.splits.at("train");
  const double build_seconds = std::chrono::duration<double>(Clock::now() - build_start).count();

  core::data::LoaderOptions loader_options;
  loader_options.sampler.dataset_size = train->labels.size();
  loader_options.sampler.batch_size = config.batch;
  loader_options.sampler.seed = static_cast<std::uint64_t>(config.seed);
  loader_options.imgsz = config.imgsz;
  loader_options.workers = config.workers;
  loader_options.device = device;
  loader_options.reuse_batch_memory = true;
  const auto plan = core::trainer::plan_augmentation(setup.recipe, config.imgsz,
                                                     core::trainer::augment_overrides(config));
  core::data::DataLoader loader(loader_options, core::data::train_sample_makers(train, plan.pipelines));

  // Epochs restart as needed: the timed window is steady state, in the first pipeline (mosaic).
  int epoch = 0;
  loader.start_epoch({epoch, 0});
  auto next_batch = [&]() {
    for (;;) {
      if (auto batch = loader.next()) return *batch;
      loader.start_epoch({++epoch, 0});
    }
  };
  for (long long i = 0; i < warmup; ++i) next_batch();
  long long images = 0;
  const auto start = Clock::now();
  for (long long i = 0; i < steps; ++i) {
    auto batch = next_batch();
    if (device.is_cuda()) batch.images.sum().item<int64_t>();  // the upload really finished
    images += batch.images.size(0);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double rate = static_cast<double>(images) / seconds;
  const auto machine = core::util::machine_info();

  std::cout << "bench data: " << rate << " images/s (" << images << " images in " << seconds << " s; "
            << config.workers << " workers, cache=" << core::data::cache_mode_name(train->images->mode())
            << ", imgsz " << config.imgsz << ", batch " << config.batch << ", augmentation "
            << (setup.family.empty() ? "SDK defaults" : setup.family + "'s") << ", " << machine.cpu_cores
            << " cores, device " << device.str() << ")\n";
  write_json(setup.options.get_text("json"), [&](core::util::JsonWriter& json) {
    json.member("benchmark", "data")
        .member_general("images_per_second", rate)
        .member("images", images)
        .member_general("seconds", seconds)
        .member_general("cache_build_seconds", build_seconds)
        .member("dataset_images", train->labels.size())
        .member("workers", config.workers)
        .member("batch", config.batch)
        .member("imgsz", config.imgsz)
        .member("cache", core::data::cache_mode_name(train->images->mode()))
        .member("device", device.str())
        .member("augmentation", setup.family.empty() ? "sdk-defaults" : setup.family)
        .member("cpu", machine.cpu_model)
        .member("cpu_cores", machine.cpu_cores)
        .member("date", machine.date_utc);
  });
  return kExitOk;
}

std::string step_line(const core::trainer::StepBenchmark& r) {
  std::ostringstream line;
  line << "fastest " << r.fastest_ms << " ms, median " << r.median_ms << " ms/step (host issues a step in "
       << r.host_median_ms << " ms), " << r.images_per_second << " images/s, back to back " << r.back_to_back_ms
       << " ms/step (" << r.batch / (r.back_to_back_ms / 1000.0) << " images/s, no synchronisation between steps)";
  if (r.peak_memory_gb >= 0) line << ", peak memory " << r.peak_memory_gb << " GB";
  if (r.host_syncs_per_step >= 0) line << ", " << r.host_syncs_per_step << " host syncs/step";
  if (r.graph_memory_gb > 0) line << " (" << r.graph_memory_gb << " GB held by the graph)";
  if (r.kernels_per_step >= 0) {
    line << ", " << r.kernels_per_step << " kernels/step, GPU busy " << r.gpu_busy_ms << " ms/step ("
         << static_cast<int>(100.0 * r.gpu_busy_ms / r.fastest_ms + 0.5) << "% of the fastest step)";
    // Streams that ran side by side (weight_grad_stream): the kernels' own time exceeds busy.
    if (r.kernel_time_ms > r.gpu_busy_ms * 1.001) {
      line << ", kernels' own time " << r.kernel_time_ms << " ms/step (" << r.kernel_time_ms - r.gpu_busy_ms
           << " ms of it side by side)";
    }
  }
  if (r.idle_ms_by_gap.size() == 5) {
    const double short_gaps = r.idle_ms_by_gap[0] + r.idle_ms_by_gap[1];
    const double long_gaps = r.idle_ms_by_gap[2] + r.idle_ms_by_gap[3] + r.idle_ms_by_gap[4];
    line << ", GPU idle " << short_gaps << " ms/step in gaps < 5 us (between dependent kernels) and " << long_gaps
         << " ms/step in longer ones (waiting for the host)";
  }
  if (r.ops_per_step >= 0) {
    line << ", " << r.ops_per_step << " operators dispatched/step (" << r.all_ops_per_step << " with those they call)";
  }
  if (!r.host_phases.empty()) {
    line << "; host ms / GPU idle ms / operators per step by phase:";
    for (const auto& p : r.host_phases) {
      line << " " << p.phase << " " << p.host_ms << "/" << p.gpu_idle_ms;
      if (p.ops >= 0) line << "/" << p.ops;  // "start" and "synchronize" are no trainer phases: not counted
    }
  }
  return line.str();
}

// bench step op_callers=OP: who calls OP in the step (eager steps), per step, most calls first.
void print_op_callers(const core::trainer::TrainRequest& request, const std::string& op) {
  if (op.empty()) return;
  constexpr int kWarmup = 2, kSteps = 3;
  constexpr std::size_t kMost = 40;
  const auto callers = core::trainer::benchmark_op_callers(request, op, kWarmup, kSteps, kMost);
  std::cout << "bench step: who calls " << op << " (" << kSteps << " eager steps after " << kWarmup
            << "; calls a step, outermost caller first):\n";
  if (callers.empty()) std::cout << "  no calls\n";
  for (const auto& [chain, calls] : callers) std::cout << "  " << calls << "  " << chain << "\n";
}

int bench_step(const Args& args) {
  const auto run = resolve_model_run("bench step", args, core::config::bench_options());
  const auto request = make_train_request(run);
  const auto result = core::trainer::benchmark_step(request, static_cast<int>(run.options.get_int("warmup")),
                                                    static_cast<int>(run.options.get_int("steps")));
  const auto machine = core::util::machine_info();
  const std::string model = run.family->info.name + run.size;
  const std::string amp = request.config.amp ? "true" : "false";
  std::cout << "bench step: " << model << " batch " << result.batch << " imgsz " << result.imgsz << " on "
            << result.device << ": " << step_line(result) << " (amp=" << amp
            << ", cuda_graph=" << (result.cuda_graph ? "true" : "false") << ", " << result.steps << " timed steps)\n";
  write_json(run.options.get_text("json"), [&](core::util::JsonWriter& json) {
    json.member("benchmark", "step").member("model", model).member("amp", amp == "true");
    step_fields(json, result);
    json.member("cpu", machine.cpu_model).member("date", machine.date_utc);
  });
  print_op_callers(request, run.options.get_text("op_callers"));
  return kExitOk;
}

// How one StepComparison is named: the command, and the two sides' words (text and JSON keys).
struct ComparisonNames {
  const char* command;
  const char* first;
  const char* second;
};

void print_comparison(const ComparisonNames& names, const std::string& model, const std::string& amp,
                      const core::trainer::StepComparison& r) {
  const std::string pad(std::max<std::size_t>(std::strlen(names.first), std::strlen(names.second)), ' ');
  const auto label = [&pad](const char* side) { return std::string(side) + ":" + pad.substr(std::strlen(side)) + " "; };
  std::cout << "bench " << names.command << ": " << model << " batch " << r.first.batch << " imgsz " << r.first.imgsz
            << " on " << r.first.device << " (amp=" << amp << ")\n  " << label(names.first) << step_line(r.first)
            << "\n  " << label(names.second) << step_line(r.second);
  if (r.second.captures + r.second.replays > 0)
    std::cout << " (" << r.second.captures << " capture, " << r.second.replays << " replays)";
  std::cout << "\n  speedup " << r.speedup << "x (fastest steps), " << r.back_to_back_speedup
            << "x (back to back); loss trajectories: " << r.identical_losses << " of "
            << r.first.losses.size() << " steps bitwise equal, largest relative difference " << r.max_loss_difference
            << "; gradients of one more batch at the initial weights: largest relative difference "
            << r.max_gradient_difference << (r.worst_gradient.empty() ? "" : " (" + r.worst_gradient + ")")
            << ", median " << r.median_gradient_difference << ", two "
            << names.first << " passes " << r.first_repeat_gradient_difference << "\n";
}

void write_comparison_json(const std::string& path, const ComparisonNames& names, const std::string& model,
                           bool amp, const core::trainer::StepComparison& r) {
  const auto machine = core::util::machine_info();
  write_json(path, [&](core::util::JsonWriter& json) {
    json.member("benchmark", names.command).member("model", model).member("amp", amp);
    json.key(names.first).begin_object();
    step_fields(json, r.first);
    json.end_object().key(names.second).begin_object();
    step_fields(json, r.second);
    json.end_object()
        .member_general("speedup", r.speedup)
        .member_general("back_to_back_speedup", r.back_to_back_speedup)
        .member("identical_losses", r.identical_losses)
        .member_general("max_loss_difference", r.max_loss_difference)
        .member_general("max_gradient_difference", r.max_gradient_difference)
        .member("worst_gradient", r.worst_gradient)
        .member_general("median_gradient_difference", r.median_gradient_difference)
        .member_general(std::string(names.first) + "_repeat_gradient_difference", r.first_repeat_gradient_difference)
        .member("cpu", machine.cpu_model)
        .member("date", machine.date_utc);
  });
}

using Comparison = core::trainer::StepComparison (*)(const core::trainer::TrainRequest&, int, int);

int bench_comparison(const Args& args, const ComparisonNames& names, Comparison compare) {
  const auto run = resolve_model_run(std::string("bench ") + names.command, args, core::config::bench_options());
  const auto request = make_train_request(run);
  const auto r = compare(request, static_cast<int>(run.options.get_int("warmup")),
                         static_cast<int>(run.options.get_int("steps")));
  const std::string model = run.family->info.name + run.size;
  print_comparison(names, model, request.config.amp ? "true" : "false", r);
  write_comparison_json(run.options.get_text("json"), names, model, request.config.amp, r);
  return kExitOk;
}

// One process, or one rank of a launcher's run (rank 0 reports: every rank's images count, since
// each trains as many as rank 0), or, with device=0,1 and no launcher, the launcher of one
// `bench train` worker per GPU (docs/multi-gpu.md).
// bench train times a few epochs, not the family's whole schedule (YOLOv9's recipe trains 300),
// unless epochs= comes from the command line or a cfg file.
constexpr int kBenchTrainEpochs = 3;

core::trainer::TrainRequest bench_train_request(const ModelRun& run) {
  auto config = core::config::make_train_config(run.options);
  const auto source = run.options.at("epochs").source;
  const bool chosen = source == core::config::OptionSource::command_line || source == core::config::OptionSource::cfg_file;
  const bool overridden = !chosen && config.epochs != kBenchTrainEpochs;
  if (overridden) {
    core::log::info("bench train: ", kBenchTrainEpochs, " epochs (the ", core::config::to_string(source), " says ",
                    config.epochs, ", a whole training run); pass epochs= for another count");
    config.epochs = kBenchTrainEpochs;
  }
  auto request = make_train_request(run, std::move(config));
  // args.yaml must not credit the family or the default with the 3.
  if (overridden) request.sources.set("epochs", core::config::OptionSource::global_default);
  return request;
}

int bench_train(const Args& args) {
  const auto run = resolve_model_run("bench train", args, core::config::bench_options());
  auto request = bench_train_request(run);
  take_rank_environment(request);
  if (becomes_launcher(request)) return spawn_workers(request, {"bench", "train"}, args);
  const auto result = core::trainer::benchmark_train(request);
  if (!main_rank(request)) return kExitOk;
  const auto machine = core::util::machine_info();
  const std::string model = run.family->info.name + run.size;
  const int ranks = request.ranks ? request.ranks->world_size : 1;
  std::cout << "bench train: " << model << " " << result.images_per_second << " images/s (epochs "
            << (result.outcome.epochs.size() > 1 ? "2.." : "1..") << result.outcome.epochs.size()
            << ", training time only" << (ranks > 1 ? ", " + std::to_string(ranks) + " ranks" : std::string())
            << "), wall " << result.wall_seconds << " s, run " << result.outcome.run.root.string() << "\n";
  write_json(run.options.get_text("json"), [&](core::util::JsonWriter& json) {
    json.member("benchmark", "train")
        .member("model", model)
        .member_general("images_per_second", result.images_per_second)
        .member_general("wall_seconds", result.wall_seconds)
        .member("epochs", result.outcome.epochs.size())
        .member("ranks", ranks)
        .member("run", result.outcome.run.root.string())
        .member("cpu", machine.cpu_model)
        .member("date", machine.date_utc);
  });
  return kExitOk;
}

}  // namespace

int run_bench(const Args& args) {
  if (args.empty() || args.front().find('=') != std::string::npos || args.front().rfind("--", 0) == 0) {
    throw core::Error("bench needs a subject", "bench data | bench step | bench capture | bench fused | bench train",
                      "e.g. libreyolo-host bench data data=coco128 imgsz=640 batch=16 workers=8 cache=ram");
  }
  const std::string what = args.front();
  const Args rest(args.begin() + 1, args.end());
  if (what == "data") return bench_data(rest);
  if (what == "step") return bench_step(rest);
  if (what == "capture") return bench_comparison(rest, {"capture", "eager", "captured"}, core::trainer::benchmark_capture);
  if (what == "fused") return bench_comparison(rest, {"fused", "composed", "fused"}, core::trainer::benchmark_fused);
  if (what == "train") return bench_train(rest);
  throw core::Error("unknown bench '" + what + "'", "expected data, step, capture, fused or train",
                    "e.g. libreyolo-host bench data ...");
}

}  // namespace libreyolo::app
