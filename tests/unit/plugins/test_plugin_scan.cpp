// Plugin isolation's pieces without LibTorch in the child: the scanner's record, how a scanner
// process's end is classified, the process watch itself (with shell scripts standing in for the
// scanner, so each case takes milliseconds) and the plugin folder's bad entries.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "libreyolo/core/plugins/plugin_files.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/plugins/plugin_scan.hpp"
#include "temp_dir.hpp"

using namespace libreyolo::core::plugins;
namespace fs = std::filesystem;

namespace {

int exited_with(int code) { return code << 8; }  // a waitpid status, as WIFEXITED reads it
int killed_by(int signal) { return signal; }

// A stand-in scanner: a shell script that ignores its argument and does `body`.
fs::path script(const libreyolo::test::TempDir& dir, const std::string& name, const std::string& body) {
  const fs::path path = dir / name;
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

ScanVerdict scan_with(const fs::path& scanner, double timeout_s = 5) {
  std::string error;
  const auto end = run_scanner(scanner, "/some/libplugin.so", timeout_s, error);
  REQUIRE_MESSAGE(end, error);
  return classify_scan(*end);
}

}  // namespace

TEST_CASE("the scanner's record reads back, and nothing but a complete record is an answer") {
  const auto ok = parse_scan_record(format_scan_record({ScanOutcome::approved, ""}));
  REQUIRE(ok);
  CHECK(ok->outcome == ScanOutcome::approved);
  const auto refused = parse_scan_record(format_scan_record({ScanOutcome::refused, "ABI\tmismatch\nhere"}));
  REQUIRE(refused);
  CHECK(refused->outcome == ScanOutcome::refused);
  CHECK(refused->reason == "ABI\tmismatch\nhere");
  const std::string full = format_scan_record({ScanOutcome::approved, ""});
  CHECK_FALSE(parse_scan_record(full.substr(0, full.size() - 4)));  // no end line: cut short
  CHECK_FALSE(parse_scan_record(""));
  CHECK_FALSE(parse_scan_record("libreyolo-plugin-scan 1\nmaybe\nend\n"));
  CHECK_FALSE(parse_scan_record("libreyolo-plugin-scan 1\nrefused\t\nend\n"));  // a refusal says why
  CHECK_FALSE(parse_scan_record(full + "ok\n"));
}

TEST_CASE("a scanner's end is classified: signal named, timeout, exit without the record") {
  ScanProcessEnd end;
  end.wait_status = killed_by(SIGSEGV);
  end.output_tail = "loading weights\n";
  auto verdict = classify_scan(end);
  CHECK(verdict.outcome == ScanOutcome::crashed);
  CHECK(verdict.reason.find("signal 11, SIGSEGV (Segmentation fault)") != std::string::npos);
  CHECK(verdict.reason.find("its last output: loading weights") != std::string::npos);

  end = {};
  end.wait_status = killed_by(SIGABRT);
  CHECK(classify_scan(end).reason.find("SIGABRT") != std::string::npos);
  CHECK(classify_scan(end).reason.find("last output") == std::string::npos);  // it said nothing

  end = {};
  end.timed_out = true;
  end.timeout_s = 2.5;
  end.wait_status = killed_by(SIGKILL);
  verdict = classify_scan(end);
  CHECK(verdict.outcome == ScanOutcome::hung);
  CHECK(verdict.reason.find("within 2.5 s") != std::string::npos);

  end = {};
  end.wait_status = exited_with(0);  // exit(0) in a static constructor: a calm exit, no record
  verdict = classify_scan(end);
  CHECK(verdict.outcome == ScanOutcome::exited);
  CHECK(verdict.reason.find("exit code 0 before the scan finished") != std::string::npos);

  end.wait_status = exited_with(3);
  end.record = format_scan_record({ScanOutcome::approved, ""});  // a record, but not exit code 0
  CHECK(classify_scan(end).outcome == ScanOutcome::exited);

  end.wait_status = exited_with(0);
  CHECK(classify_scan(end).outcome == ScanOutcome::approved);
  end.record = format_scan_record({ScanOutcome::refused, "it does not export x"});
  CHECK(classify_scan(end).reason == "it does not export x");
}

TEST_CASE("the scanner process is watched: its record, its signal, its timeout, its exit") {
  libreyolo::test::TempDir dir;
  const std::string started = "printf 'libreyolo-plugin-scan 1\\n'; ";  // the scanner's first line
  CHECK(scan_with(script(dir, "ok.sh", "printf 'libreyolo-plugin-scan 1\\nok\\nend\\n'")).outcome ==
        ScanOutcome::approved);
  const auto crashed = scan_with(script(dir, "segv.sh", started + "echo 'about to fail' >&2; kill -SEGV $$"));
  CHECK(crashed.outcome == ScanOutcome::crashed);
  CHECK(crashed.reason.find("SIGSEGV") != std::string::npos);
  CHECK(crashed.reason.find("about to fail") != std::string::npos);
  CHECK(scan_with(script(dir, "exits.sh", started + "exit 0")).outcome == ScanOutcome::exited);

  const auto start = std::chrono::steady_clock::now();
  const auto hung = scan_with(script(dir, "hangs.sh", started + "exec sleep 30"), 0.3);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(hung.outcome == ScanOutcome::hung);
  CHECK(took < 5);  // killed at the timeout, not waited for

  // A scanner that fails before its first line (here: as if a library of its own were missing)
  // never loaded the plugin: refused this time, not remembered against the plugin.
  const auto broken = scan_with(script(dir, "broken.sh", "echo 'error while loading shared libraries' >&2; exit 127"));
  CHECK(broken.outcome == ScanOutcome::refused);
  CHECK_FALSE(broken.remember);
  CHECK(broken.reason.find("failed before it loaded the plugin (exit code 127)") != std::string::npos);
  CHECK(broken.reason.find("error while loading shared libraries") != std::string::npos);

  std::string error;
  CHECK_FALSE(run_scanner(dir / "no-such-scanner", "/p.so", 1, error));
  CHECK(error.find("cannot run") != std::string::npos);
}

TEST_CASE("a symbolic-link loop, a link to nothing and an unreadable file in a plugin folder are reported, not thrown") {
  libreyolo::test::TempDir dir;
  fs::create_symlink("libloop.so", dir / "libloop.so");  // points at itself
  fs::create_symlink("libnothing-here.so", dir / "libdangling.so");
  std::ofstream(dir / "libplain.so") << "not a library";
  fs::create_directory(dir / "libfolder.so");  // not a file: not a plugin, not a problem
  std::ofstream(dir / "libsecret.so") << "x";
  ::chmod((dir / "libsecret.so").c_str(), 0);
  const bool can_deny_reading = ::geteuid() != 0;  // root reads any file

  const auto found = find_plugin_files({dir.path(), dir / "does-not-exist"});
  REQUIRE(found.files.size() == (can_deny_reading ? 1u : 2u));
  CHECK(found.files.back().filename() == (can_deny_reading ? "libplain.so" : "libsecret.so"));
  REQUIRE(found.problems.size() == (can_deny_reading ? 3u : 2u));
  auto problem_of = [&](const std::string& name) -> std::string {
    for (const auto& p : found.problems) {
      if (p.file.filename() == name) return p.reason;
    }
    return "";
  };
  CHECK(problem_of("libloop.so").find("cannot be examined: Too many levels of symbolic links") != std::string::npos);
  CHECK(problem_of("libdangling.so").find("symbolic link to a file that does not exist") != std::string::npos);
  if (can_deny_reading) CHECK(problem_of("libsecret.so").find("cannot be read: Permission denied") != std::string::npos);

  // The in-process loader goes through the same listing: the loop is one refusal, no exception.
  const auto registry = load_plugins({dir.path()});
  CHECK(registry.families().empty());
  CHECK(registry.refused().size() == (can_deny_reading ? 4u : 4u));
}
