// fuzz_inputs TARGET [seconds=10] [seed=1] [corpus=DIR] [limit_ms=2000] [out=DIR]
//
// A seeded random-mutation fuzz test of the host's input parsers (docs/fuzzing.md). It reads
// the corpus (a few valid files), runs each file as it is, then mutates them (mutate.hpp) and
// feeds the target until `seconds` have passed. It fails (exit 1) on a crash, on an input that
// runs longer than limit_ms, and on any exception other than the project's error type; the
// input that did it is written to out/ (default: the current folder) to be replayed and added
// to the corpus once fixed. The same seed replays the same inputs. No sanitizer or clang needed.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <thread>
#include <typeinfo>

#include "fuzz_targets.hpp"
#include "libreyolo/core/util/remove_tree.hpp"

namespace fs = std::filesystem;
using namespace libreyolo::test::fuzz;
using Clock = std::chrono::steady_clock;

namespace {

struct Settings {
  std::string target;
  double seconds = 10;
  std::uint64_t seed = 1;
  fs::path corpus;
  long limit_ms = 2000;
  fs::path out = ".";
};

// What the signal handler and the watchdog need: the input now running, written with write()
// only (async-signal-safe), to a path prepared before any input runs.
struct InFlight {
  std::atomic<const Bytes*> input{nullptr};
  std::atomic<std::int64_t> started_ns{0};
  char path[4096] = {};
};
InFlight in_flight;

void save_in_flight_and_exit(const char* what) {
  const Bytes* input = in_flight.input.load();
  const int fd = ::open(in_flight.path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0 && input) {
    [[maybe_unused]] auto written = ::write(fd, input->data(), input->size());
    ::close(fd);
  }
  for (const char* part : {"FAILED: ", what, "; the input is in ", static_cast<const char*>(in_flight.path), "\n"}) {
    [[maybe_unused]] auto written = ::write(2, part, std::strlen(part));
  }
  ::_exit(1);
}

void on_crash(int signal) {
  save_in_flight_and_exit(signal == SIGSEGV ? "crash (SIGSEGV)" : signal == SIGABRT ? "crash (SIGABRT)"
                                                              : signal == SIGFPE  ? "crash (SIGFPE)"
                                                                                  : "crash (SIGBUS)");
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// A hang never returns to the loop, so a thread watches the clock of the input in flight.
void watch_for_hangs(long limit_ms) {
  std::thread([limit_ms] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const std::int64_t started = in_flight.started_ns.load();
      if (started != 0 && now_ns() - started > limit_ms * 1000000) save_in_flight_and_exit("hang (input ran past limit_ms)");
    }
  }).detach();
}

Settings parse_settings(int argc, char** argv) {
  if (argc < 2) throw std::invalid_argument("usage: fuzz_inputs TARGET [seconds=10] [seed=1] [corpus=DIR] [limit_ms=2000] [out=DIR]");
  Settings s;
  s.target = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (key == "seconds") s.seconds = std::stod(value);
    else if (key == "seed") s.seed = std::stoull(value);
    else if (key == "corpus") s.corpus = value;
    else if (key == "limit_ms") s.limit_ms = std::stol(value);
    else if (key == "out") s.out = value;
    else throw std::invalid_argument("unknown argument " + arg);
  }
  if (s.corpus.empty()) s.corpus = fs::path("tests/fuzz") / s.target;
  return s;
}

std::vector<Bytes> read_corpus(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());  // the seed's replay must not depend on directory order
  std::vector<Bytes> corpus;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (corpus.empty()) throw std::invalid_argument("the corpus folder " + folder.string() + " holds no file");
  return corpus;
}

// Runs one input: true when the target accepted it, false when it refused it with the
// project's error. Anything else saves the input and ends the process.
bool run_one(const Target& target, const Bytes& input) {
  in_flight.input = &input;
  in_flight.started_ns = now_ns();
  bool accepted = true;
  try {
    target.run(input);
  } catch (const std::exception& e) {
    if (!is_project_error(e)) {
      std::cerr << "foreign exception " << typeid(e).name() << ": " << std::string(e.what()).substr(0, 400) << "\n";
      save_in_flight_and_exit("an exception other than the project's error type");
    }
    accepted = false;
  } catch (...) {
    save_in_flight_and_exit("a non-std exception");
  }
  in_flight.started_ns = 0;
  return accepted;
}

const Target& find_target(const std::vector<Target>& targets, const std::string& name) {
  for (const auto& t : targets) {
    if (t.name == name) return t;
  }
  std::string names;
  for (const auto& t : targets) names += " " + t.name;
  throw std::invalid_argument("unknown target " + name + "; targets:" + names);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Settings s = parse_settings(argc, argv);
    const fs::path scratch = fs::temp_directory_path() / ("libreyolo_fuzz_" + s.target + "_" + std::to_string(::getpid()));
    const auto targets = fuzz_targets(scratch);
    const Target& target = find_target(targets, s.target);
    const auto corpus = read_corpus(s.corpus);
    fs::create_directories(s.out);
    const std::string failure = (fs::absolute(s.out) / ("fuzz_" + s.target + "_failure.bin")).string();
    std::snprintf(in_flight.path, sizeof in_flight.path, "%s", failure.c_str());
    for (int signal : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS}) std::signal(signal, on_crash);
    watch_for_hangs(s.limit_ms);

    std::size_t runs = 0, accepted = 0;
    for (const auto& seed : corpus) {
      accepted += run_one(target, seed);
      ++runs;
    }
    std::mt19937_64 rng(s.seed);
    Bytes current;
    const auto deadline = Clock::now() + std::chrono::duration<double>(s.seconds);
    while (Clock::now() < deadline) {
      // Mostly a fresh mutant of a corpus file; sometimes the last mutant mutated again, to
      // reach damage that needs several steps.
      const bool stack = !current.empty() && rng() % 3 == 0;
      current = mutate(stack ? current : corpus[rng() % corpus.size()], corpus, target.tokens, rng);
      accepted += run_one(target, current);
      ++runs;
    }
    std::error_code ignored;
    libreyolo::core::util::remove_tree(scratch, ignored);
    std::cout << "fuzz " << s.target << ": " << runs << " inputs in " << s.seconds << " s (seed " << s.seed << "), "
              << accepted << " accepted, " << runs - accepted
              << " refused with the project's error; no crash, hang or other exception\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "fuzz_inputs: " << e.what() << "\n";
    return 2;
  }
}
