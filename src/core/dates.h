// Calendar dates, checked: "2024-02-30" has the shape of a date and names no
// day (issue 15, item 7). One check for every parser that reads dates.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpuplan::dates {

// Days in month `month` (1..12) of `year` in the proleptic Gregorian
// calendar; 0 for a month outside 1..12.
[[nodiscard]] int days_in_month(int64_t year, int month);

// Days since 1970-01-01 of year-month-day in the proleptic Gregorian
// calendar (negative before it). Howard Hinnant's days_from_civil
// (http://howardhinnant.github.io/date_algorithms.html); `month` 1..12 and
// `day` 1..31 are the caller's to check.
[[nodiscard]] int64_t days_from_civil(int64_t year, unsigned month, unsigned day);

// True when `s` is exactly YYYY-MM-DD and names a real day.
[[nodiscard]] bool is_calendar_date(std::string_view s);

// `unix_seconds` in UTC through strftime's `format` ("%Y-%m-%d"), and the
// clock's present the same way: the one path every UTC stamp takes.
[[nodiscard]] std::string format_utc(int64_t unix_seconds, const char* format);
[[nodiscard]] std::string now_utc(const char* format);

}  // namespace gpuplan::dates
