// download_file with libcurl: redirects (Hugging Face answers with one to its CDN), TLS, resume
// by Range request, and precise errors for each way a transfer fails.

#include <curl/curl.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>

#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/weights/download.hpp"
#include "libreyolo/core/weights/download_progress.hpp"
#include "part_file.hpp"

namespace libreyolo::core::weights {
namespace {

// A transfer that delivers nothing for this long is stalled, not slow.
constexpr long kStallSeconds = 60;
constexpr long kConnectTimeoutSeconds = 30;

// What the callbacks share during one request.
struct Transfer {
  CURL* curl = nullptr;
  PartFile* part = nullptr;
  std::uint64_t offset = 0;  // bytes on disk when the request was sent
  std::uint64_t received = 0;
  std::optional<std::uint64_t> content_length;   // of the latest response
  std::optional<std::uint64_t> range_start, range_total;  // its Content-Range
  std::optional<std::uint64_t> total;            // the whole file's size, once the response is known
  bool body_started = false;
  bool restarted = false;                        // the server ignored the Range request
  std::string failure;                           // set by a callback that aborted the transfer
  DownloadProgress* progress = nullptr;
};

std::optional<std::uint64_t> parse_number(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoull(text);
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const auto first = text.find_first_not_of(' ');
  return first == std::string::npos ? std::string() : text.substr(first);
}

// "bytes 100-199/1000": the start and the total.
void parse_content_range(const std::string& value, Transfer& t) {
  unsigned long long start = 0, end = 0, total = 0;
  if (std::sscanf(value.c_str(), "bytes %llu-%llu/%llu", &start, &end, &total) == 3) {
    t.range_start = start;
    t.range_total = total;
  }
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect): forget the last one's
    t.content_length.reset();
    t.range_start.reset();
    t.range_total.reset();
    return size * count;
  }
  const auto colon = line.find(':');
  if (colon == std::string::npos) return size * count;
  std::string name = line.substr(0, colon);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto value = trimmed(line.substr(colon + 1));
  if (name == "content-length") t.content_length = parse_number(value);
  if (name == "content-range") parse_content_range(value, t);
  return size * count;
}

// The final response is known: resume where asked, or start over when the server sent it all.
bool settle_response(Transfer& t) {
  long status = 0;
  curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &status);
  if (status == 206) {
    if (t.range_start.value_or(t.offset) != t.offset) {
      t.failure = "the server resumed at byte " + std::to_string(*t.range_start) + ", not at " + std::to_string(t.offset);
      return false;
    }
    if (t.range_total) t.total = t.range_total;
    else if (t.content_length) t.total = t.offset + *t.content_length;
  } else {
    if (t.offset > 0) {
      if (!t.part->restart()) {
        t.failure = "cannot empty " + t.part->path().string();
        return false;
      }
      t.offset = 0;
      t.restarted = true;
    }
    t.total = t.content_length;
  }
  t.body_started = true;
  return true;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  if (!t.body_started && !settle_response(t)) return 0;
  if (!t.part->append(data, size * count, t.failure)) return 0;
  t.received += size * count;
  t.progress->update(t.offset + t.received, t.total);
  return size * count;
}

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string http_reason(long status) {
  switch (status) {
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 410: return "Gone";
    case 416: return "Range Not Satisfiable";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    default: return status >= 500 ? "a server error" : "an error";
  }
}

std::string received_text(const Transfer& t) {
  std::string text = format_bytes(t.offset + t.received);
  if (t.total) text += " of " + format_bytes(*t.total);
  return text;
}

std::string explain(CURLcode code, const Transfer& t, long status, const char* detail) {
  std::string why;
  switch (code) {
    case CURLE_HTTP_RETURNED_ERROR: why = "the server answered HTTP " + std::to_string(status) + " (" + http_reason(status) + ")"; break;
    case CURLE_COULDNT_RESOLVE_HOST: why = "the server's name could not be resolved (no network, or DNS is down)"; break;
    case CURLE_COULDNT_RESOLVE_PROXY: why = "the proxy's name could not be resolved"; break;
    case CURLE_COULDNT_CONNECT: why = "the connection was refused or the server is unreachable (no network, a firewall, or the server is down)"; break;
    case CURLE_OPERATION_TIMEDOUT: why = "the server stopped sending (no data for " + std::to_string(kStallSeconds) + " s) or did not answer"; break;
    case CURLE_PARTIAL_FILE: why = "the connection closed after " + received_text(t); break;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING: why = "the connection broke after " + received_text(t); break;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CACERT_BADFILE: why = "the TLS connection failed (the system's CA certificates, or a proxy in the way?)"; break;
    case CURLE_WRITE_ERROR:
    case CURLE_ABORTED_BY_CALLBACK: why = t.failure.empty() ? "the transfer was aborted" : t.failure; break;
    default: why = curl_easy_strerror(code); break;
  }
  if (detail && *detail && code != CURLE_WRITE_ERROR) why += " (" + std::string(detail) + ")";
  return why;
}

// One request for what `part` lacks; its result and the transfer's state in `t`.
CURLcode request(const std::string& url, Transfer& t, long& status, char* detail) {
  CURL* curl = curl_easy_init();
  if (!curl) return CURLE_FAILED_INIT;
  t.curl = curl;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);  // error bodies never reach the file
  // CURLOPT_NOSIGNAL stays off: this thread is the only one, and with it off libcurl ignores
  // SIGPIPE while it runs (a server closing mid-write must not kill the host).
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "libreyolo-host");
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, kConnectTimeoutSeconds);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, kStallSeconds);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, detail);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  // CURLOPT_RANGE, not RESUME_FROM: libcurl fails a RESUME_FROM that the server answers with the
  // whole file, and a server without Range support should just send it again (settle_response).
  const auto range = std::to_string(t.offset) + "-";
  if (t.offset > 0) curl_easy_setopt(curl, CURLOPT_RANGE, range.c_str());
  detail[0] = '\0';
  const auto code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (code == CURLE_OK && !t.body_started) settle_response(t);  // an empty body
  curl_easy_cleanup(curl);
  t.curl = nullptr;
  return code;
}

}  // namespace

namespace {

// One request; on success the .part is complete and renamed to `destination`.
DownloadOutcome attempt(const std::string& url, const std::filesystem::path& destination, PartFile& part) {
  Transfer t;
  t.part = &part;
  t.offset = part.size();
  if (t.offset > 0) log::info("resuming ", part.path().string(), " after ", format_bytes(t.offset));
  DownloadProgress progress(std::cerr, ::isatty(STDERR_FILENO) == 1, destination.filename().string(), t.offset);
  t.progress = &progress;
  char detail[CURL_ERROR_SIZE];
  long status = 0;
  const auto code = request(url, t, status, detail);
  DownloadOutcome outcome;
  if (status > 0) outcome.http_status = status;
  const auto on_disk = t.offset + t.received;
  if (code != CURLE_OK) {
    outcome.failure = explain(code, t, status, detail);
  } else if (!t.failure.empty()) {
    outcome.failure = t.failure;
  } else if (t.total && on_disk != *t.total) {
    outcome.failure = "received " + format_bytes(on_disk) + " (" + std::to_string(on_disk) + " bytes) of the " +
                      std::to_string(*t.total) + " the server announced";
  } else {
    outcome.ok = part.publish(destination, outcome.failure);
  }
  progress.finish(outcome.ok);
  if (t.restarted && outcome.ok) log::info("the server did not resume the partial download: fetched it whole");
  return outcome;
}

}  // namespace

bool downloader_available() { return true; }

std::string downloader_description() {
  const auto* info = curl_version_info(CURLVERSION_NOW);
  std::string text = std::string("libcurl ") + info->version;
  if (info->ssl_version) text += std::string(" (") + info->ssl_version + ")";
  return text;
}

DownloadOutcome download_file(const std::string& url, const std::filesystem::path& destination) {
  init_curl_once();
  std::string error;
  PartFile part(destination, error);
  if (!part.open()) return {false, error, false, std::nullopt};
  std::error_code ec;
  if (std::filesystem::is_regular_file(destination, ec)) {  // another process finished it while this one waited
    part.discard_if_other_finished(destination);
    return {true, "", false, std::nullopt};
  }
  auto outcome = attempt(url, destination, part);
  // 416 to a resume: the .part is no prefix the server can continue (or already the whole file
  // of another version): start over once.
  if (!outcome.ok && outcome.http_status == 416 && part.size() > 0 && part.restart()) {
    outcome = attempt(url, destination, part);
  }
  if (!outcome.ok) outcome.partial_kept = part.keep_if_useful();
  return outcome;
}

}  // namespace libreyolo::core::weights
