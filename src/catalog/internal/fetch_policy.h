// What the live price import may fetch (issue 15, item 3). `catalog import
// retail-prices --live --endpoint file:///etc/passwd` printed the file in its
// error, and NextPageLink was followed to any scheme and host: a tampered or
// spoofed page could point the importer anywhere. Now:
//  - the default endpoint and every page it links to are
//    https://prices.azure.com (the Retail Prices API, learn.microsoft.com
//    "Azure Retail Prices REST API overview", read 2026-12-03);
//  - an --endpoint (a mirror) must be https, or http on loopback (tests);
//  - NextPageLink must stay on the scheme, host and port of the first page;
//  - no user name or password in a URL, no redirects (libcurl is told to
//    follow none and to speak only HTTP(S)), no control or non-ASCII bytes;
//  - a page is at most FetchLimits::max_page_bytes and the chain at most
//    max_pages long, both stated defaults with flags to raise them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpuplan::catalog {

// The Retail Prices API host.
inline constexpr std::string_view kRetailPricesHost = "prices.azure.com";

// The parts of an absolute http(s) URL that the policy checks.
struct UrlOrigin {
  std::string scheme;  // "https"
  std::string host;    // lower case, "prices.azure.com"; IPv6 without brackets
  int port = 0;        // explicit or the scheme's default (443, 80)
  bool loopback() const;
  bool operator==(const UrlOrigin&) const = default;
};

// The origin of `url`; kInvalidArgument naming `field` when it is not an
// absolute http(s) URL, carries user info, or has bytes outside printable ASCII.
[[nodiscard]] Result<UrlOrigin> url_origin(std::string_view url, const std::string& field);

// Whether the first page may be fetched: the API's own host over https, any
// host over https when the user named it (`user_endpoint`), or http on
// loopback. kInvalidArgument naming --endpoint otherwise.
[[nodiscard]] Result<UrlOrigin> check_first_url(std::string_view url, bool user_endpoint);

// Whether a NextPageLink may be followed: same origin as the first page.
// kInvalidArgument naming the page (`origin_label`) and NextPageLink otherwise.
[[nodiscard]] Status check_next_url(std::string_view url, const UrlOrigin& first,
                                    const std::string& origin_label);

}  // namespace gpuplan::catalog
