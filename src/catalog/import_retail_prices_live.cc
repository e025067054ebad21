// Retail Prices API importer, live: the pages fetched with libcurl
// (dlopen'ed the first time a live import runs, so no other command pays for
// it at start-up), following NextPageLink within the bounds of
// fetch_policy.h, retrying 429, 5xx and network errors with exponential
// backoff and Retry-After. Every page goes through the same
// RetailPricesImport as a file would (import_retail_prices.cc).
#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

#include <curl/curl.h>
#include <dlfcn.h>

#include "catalog/import_retail_prices.h"
#include "catalog/internal/fetch_policy.h"
#include "catalog/internal/import_common.h"
#include "core/names.h"
#include "core/strings.h"

namespace gpuplan::catalog {

std::string default_retail_prices_endpoint(const std::string& region) {
  // Spaces and quotes are percent-encoded; the API's filter values are
  // case-sensitive since 2023-01-01-preview.
  std::string filter =
      "serviceName%20eq%20%27Virtual%20Machines%27%20and%20currencyCode%20eq%20%27USD%27"
      "%20and%20contains(armSkuName,%20%27Standard_N%27)";
  std::string r = internal::normalize_region(region);
  if (!r.empty()) filter += "%20and%20armRegionName%20eq%20%27" + r + "%27";
  return "https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview&$filter=" +
         filter;
}

namespace {

// libcurl, loaded with dlopen the first time a live import runs. Linking it
// made every gpuplan start map and relocate ~30 shared libraries (OpenSSL,
// GnuTLS, Kerberos, LDAP, ...): two thirds of `gpuplan --version`
// (docs/ARCHITECTURE.md, "Start-up"). curl.h still gives the types and
// constants; the functions come from here.
struct CurlApi {
  CURLcode (*global_init)(long flags) = nullptr;
  CURL* (*easy_init)() = nullptr;
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
  CURLcode (*easy_perform)(CURL*) = nullptr;
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
  const char* (*easy_strerror)(CURLcode) = nullptr;
  void (*easy_cleanup)(CURL*) = nullptr;
  std::string error;  // why it could not be loaded; "" when loaded
};

CurlApi load_curl(const std::string& name) {
  CurlApi api;
  void* lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    api.error = why ? why : "dlopen failed";
    return api;
  }
  // Never dlclose'd: the handle lives as long as the process.
  bool ok = true;
  auto sym = [&](auto& fn, const char* symbol) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, symbol));
    if (fn == nullptr && ok) {
      ok = false;
      api.error = name + " lacks " + symbol;
    }
  };
  sym(api.global_init, "curl_global_init");
  sym(api.easy_init, "curl_easy_init");
  sym(api.easy_setopt, "curl_easy_setopt");
  sym(api.easy_perform, "curl_easy_perform");
  sym(api.easy_getinfo, "curl_easy_getinfo");
  sym(api.easy_strerror, "curl_easy_strerror");
  sym(api.easy_cleanup, "curl_easy_cleanup");
  if (ok && api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    ok = false;
    api.error = "curl_global_init failed";
  }
  return api;
}

// One load per library name, thread-safe; the default name is the only one
// outside tests.
const CurlApi& curl_api(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<const CurlApi>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = loaded[name];
  if (!slot) slot = std::make_unique<const CurlApi>(load_curl(name));
  return *slot;
}

// The body so far and its cap: returning short makes libcurl stop with
// CURLE_WRITE_ERROR, so a page never grows past the cap in memory.
struct Body {
  std::string text;
  size_t cap = 0;
  bool over = false;
};

size_t append_body(char* data, size_t size, size_t n, void* user) {
  auto* body = static_cast<Body*>(user);
  if (body->text.size() + size * n > body->cap) {
    body->over = true;
    return 0;
  }
  body->text.append(data, size * n);
  return size * n;
}

struct HeaderState {
  long retry_after_s = -1;
};

size_t read_header(char* data, size_t size, size_t n, void* user) {
  std::string_view line(data, size * n);
  if (strings::starts_with_icase(line, "retry-after:")) {
    auto v = strings::parse_double(strings::trim(line.substr(12)));
    if (v && *v >= 0) static_cast<HeaderState*>(user)->retry_after_s = static_cast<long>(*v);
  }
  return size * n;
}

struct Response {
  CURLcode transport = CURLE_OK;
  std::string transport_error;
  long status = 0;
  long retry_after_s = -1;
  Body body;
};

Response http_get(const CurlApi& api, const std::string& url, const LiveOptions& o) {
  Response r;
  r.body.cap = o.max_page_bytes;
  CURL* curl = api.easy_init();
  if (curl == nullptr) {
    r.transport = CURLE_FAILED_INIT;
    r.transport_error = "libcurl could not start";
    return r;
  }
  char errbuf[CURL_ERROR_SIZE] = {0};
  HeaderState headers;
  api.easy_setopt(curl, CURLOPT_URL, url.c_str());
  api.easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  api.easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
  api.easy_setopt(curl, CURLOPT_HEADERFUNCTION, read_header);
  api.easy_setopt(curl, CURLOPT_HEADERDATA, &headers);
  api.easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  // No redirects (a Location could name any host) and HTTP(S) only, even if
  // a URL slipped past fetch_policy.h.
  api.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
  api.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
  api.easy_setopt(curl, CURLOPT_TIMEOUT, o.timeout_s);
  api.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 15L);
  api.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  api.easy_setopt(curl, CURLOPT_USERAGENT, "gpuplan/0.1");
  api.easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  r.transport = api.easy_perform(curl);
  if (r.body.over) {
    r.transport_error =
        "the page is larger than " +
        (o.max_page_bytes >= (size_t{1} << 20) ? std::to_string(o.max_page_bytes >> 20) + " MiB"
                                               : std::to_string(o.max_page_bytes) + " bytes") +
        " (raise with --max-page-mib)";
  } else if (r.transport != CURLE_OK) {
    r.transport_error = errbuf[0] != '\0' ? errbuf : api.easy_strerror(r.transport);
  } else {
    api.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
  }
  r.retry_after_s = headers.retry_after_s;
  api.easy_cleanup(curl);
  return r;
}

// One page with bounded retries; kUnavailable when it keeps failing.
Result<std::string> fetch_page(const CurlApi& api, const std::string& url, const LiveOptions& o) {
  std::chrono::milliseconds backoff = o.initial_backoff;
  std::string last_problem;
  const int attempts = std::max(1, o.max_attempts);
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    Response r = http_get(api, url, o);
    bool retry = false;
    std::chrono::milliseconds wait = backoff;
    if (r.body.over) return unavailable(r.transport_error, Where{names::printable(url, 200)});
    if (r.transport != CURLE_OK) {
      last_problem = "network error: " + r.transport_error;
      retry = true;
    } else if (r.status == 200) {
      return std::move(r.body.text);
    } else if (r.status == 429 || r.status >= 500) {
      last_problem = "HTTP " + std::to_string(r.status);
      retry = true;
      if (r.retry_after_s >= 0) wait = std::chrono::seconds(r.retry_after_s);
    } else {
      // A short excerpt, bytes outside printable ASCII escaped: an error
      // never replays a response body.
      std::string snippet = names::printable(r.body.text, 120);
      return unavailable("HTTP " + std::to_string(r.status) + " from the price API" +
                             (snippet.empty() ? "" : ": " + snippet),
                         Where{names::printable(url, 200)});
    }
    if (!retry || attempt == attempts) break;
    wait = std::min(wait, o.max_backoff);
    std::this_thread::sleep_for(wait);
    backoff = std::min(backoff * 2, o.max_backoff);
  }
  return unavailable("price API unreachable after " + std::to_string(attempts) + " attempts (" +
                         last_problem + ")",
                     Where{url});
}

}  // namespace

Result<ImportReport> import_retail_prices_live(const LiveOptions& options,
                                               const SizeFilter& filter) {
  GPUPLAN_RETURN_IF_ERROR(
      internal::refuse_sovereign_region(internal::normalize_region(options.region)));
  const std::string first =
      options.endpoint.empty() ? default_retail_prices_endpoint(options.region) : options.endpoint;
  // The fetch policy first: nothing is fetched from a URL it refuses.
  GPUPLAN_TRY(const UrlOrigin origin, check_first_url(first, !options.endpoint.empty()));
  const CurlApi& api = curl_api(options.libcurl);
  if (!api.error.empty()) {
    return unavailable("cannot fetch live prices: libcurl could not be loaded (" + api.error +
                           "); install the Debian package libcurl4, or import saved pages with "
                           "`gpuplan catalog import retail-prices FILE...`",
                       Where{first});
  }
  RetailPricesImport import(filter, options.region);
  std::string url = first;
  int page = 0;
  while (!url.empty()) {
    if (++page > options.max_pages)
      return unavailable("more than " + std::to_string(options.max_pages) +
                             " pages: stopping (a NextPageLink loop? raise with --max-pages)",
                         Where{first});
    GPUPLAN_TRY(std::string body, fetch_page(api, url, options));
    const std::string label = names::printable(url, 200) + " (page " + std::to_string(page) + ")";
    GPUPLAN_TRY(url, import.add_page(body, label));
    if (!url.empty()) GPUPLAN_RETURN_IF_ERROR(check_next_url(url, origin, label));
    if (options.progress) options.progress(page, 0);
  }
  return import.finish(first);
}

}  // namespace gpuplan::catalog
