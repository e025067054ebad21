#include "catalog/internal/fetch_policy.h"

#include <charconv>

#include "core/names.h"
#include "core/strings.h"

namespace gpuplan::catalog {

bool UrlOrigin::loopback() const {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

Result<UrlOrigin> url_origin(std::string_view url, const std::string& field) {
  auto bad = [&](const std::string& why) {
    return invalid_argument(why + ": '" + names::printable(url, 100) + "'", Where{"", 0, 0, field});
  };
  for (char c : url)
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      return bad("a URL with a space, control or non-ASCII byte");
  const size_t colon = url.find("://");
  if (colon == std::string_view::npos) return bad("not an absolute URL");
  UrlOrigin o;
  o.scheme = strings::to_lower(url.substr(0, colon));
  if (o.scheme != "https" && o.scheme != "http")
    return bad("only https (or http on loopback) is fetched, not " +
               names::printable(o.scheme, 20));
  std::string_view rest = url.substr(colon + 3);
  const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.find('@') != std::string_view::npos) return bad("a URL with user info");
  std::string_view host = authority;
  std::string_view port;
  if (!host.empty() && host[0] == '[') {  // [IPv6]:port
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return bad("a malformed IPv6 host");
    if (close + 1 < host.size()) {
      if (host[close + 1] != ':') return bad("a malformed host");
      port = host.substr(close + 2);
    }
    host = host.substr(1, close - 1);
  } else if (const size_t c = host.rfind(':'); c != std::string_view::npos) {
    port = host.substr(c + 1);
    host = host.substr(0, c);
  }
  if (host.empty()) return bad("a URL without a host");
  o.host = strings::to_lower(host);
  o.port = o.scheme == "https" ? 443 : 80;
  if (!port.empty()) {
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), o.port);
    if (ec != std::errc() || end != port.data() + port.size() || o.port < 1 || o.port > 65535)
      return bad("a malformed port");
  }
  return o;
}

Result<UrlOrigin> check_first_url(std::string_view url, bool user_endpoint) {
  GPUPLAN_TRY(UrlOrigin o, url_origin(url, "--endpoint"));
  if (o.scheme == "http" && !o.loopback())
    return invalid_argument("http is fetched only on loopback (tests); use https for '" +
                                names::printable(url, 100) + "'",
                            Where{"", 0, 0, "--endpoint"});
  if (!user_endpoint && o.host != kRetailPricesHost)
    return invalid_argument("the default endpoint must be " + std::string(kRetailPricesHost),
                            Where{"", 0, 0, "--endpoint"});
  return o;
}

Status check_next_url(std::string_view url, const UrlOrigin& first,
                      const std::string& origin_label) {
  auto o = url_origin(url, "NextPageLink");
  if (!o) {
    Error e = o.error();
    e.where.file = origin_label;
    return tl::unexpected(e);
  }
  if (!(*o == first))
    return invalid_argument("links to " + o->scheme + "://" + names::printable(o->host, 60) + ":" +
                                std::to_string(o->port) + ", not the first page's " + first.scheme +
                                "://" + first.host + ":" + std::to_string(first.port) +
                                ": not followed",
                            Where{origin_label, 0, 0, "NextPageLink"});
  return {};
}

}  // namespace gpuplan::catalog
