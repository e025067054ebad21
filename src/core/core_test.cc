#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "core/csv.h"
#include "core/dates.h"
#include "core/deadline.h"
#include "core/files.h"
#include "core/format.h"
#include "core/names.h"
#include "core/result.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "core/units.h"

namespace gpuplan {
namespace {

TEST(Error, ToStringNamesFileLineColumnAndField) {
  Error e{ErrorCode::kInvalidArgument, "expected a number", Where{"a.csv", 3, 7, "Price"}};
  EXPECT_EQ(e.to_string(), "a.csv:3:7: Price: expected a number");
  Error bare{ErrorCode::kInternal, "oops", {}};
  EXPECT_EQ(bare.to_string(), "oops");
}

TEST(Error, ExitCodes) {
  EXPECT_EQ(exit_code_for(ErrorCode::kInvalidArgument), 2);
  EXPECT_EQ(exit_code_for(ErrorCode::kNotFound), 2);
  EXPECT_EQ(exit_code_for(ErrorCode::kFailedPrecondition), 1);
  EXPECT_EQ(exit_code_for(ErrorCode::kUnavailable), 3);
  EXPECT_EQ(exit_code_for(ErrorCode::kInternal), 4);
  EXPECT_EQ(exit_code_for(ErrorCode::kDeadlineExceeded), 3);
}

TEST(Deadline, NoneNeverExpiresAndAPassedOneSaysWhatItWasDoing) {
  const Deadline none;
  EXPECT_FALSE(none.active());
  EXPECT_FALSE(none.expired());
  EXPECT_TRUE(none.check("anything"));
  const Deadline past = Deadline::after(0);
  EXPECT_TRUE(past.expired());
  const Status s = past.check("replaying");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(s.error().message,
            "gave up after the 0.0 s this computation was given, while replaying");
  // An hour is far off; a deadline past the clock's range is none at all.
  EXPECT_FALSE(Deadline::after(3600).expired());
  EXPECT_FALSE(Deadline::after(1e300).expired());
}

TEST(Deadline, TheClientLeavingEndsItAtOnce) {
  std::atomic<bool> gone{false};
  const Deadline d = Deadline::after(3600, &gone);
  EXPECT_FALSE(d.expired());
  gone = true;
  EXPECT_TRUE(d.expired());
  EXPECT_EQ(d.error("").message, "stopped: the client left");
  // Also when its time is unlimited.
  std::atomic<bool> left{true};
  EXPECT_TRUE(Deadline::after(1e300, &left).expired());
}

TEST(Deadline, APollReadsTheClockOnceEveryNCalls) {
  const Deadline past = Deadline::after(0);
  DeadlinePoll poll(past, 4);
  EXPECT_FALSE(poll.expired());
  EXPECT_FALSE(poll.expired());
  EXPECT_FALSE(poll.expired());
  EXPECT_TRUE(poll.expired());  // the 4th call reads it
  const Deadline none;
  DeadlinePoll idle(none, 1);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(idle.expired());
}

Result<int> half(int x) {
  if (x % 2) return invalid_argument("odd");
  return x / 2;
}
Result<int> quarter(int x) {
  GPUPLAN_TRY(int h, half(x));
  GPUPLAN_TRY(int q, half(h));
  return q;
}

TEST(Result, TryPropagatesTheFirstError) {
  EXPECT_EQ(*quarter(8), 2);
  auto r = quarter(6);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "odd");
}

TEST(Units, MoneyTimesTime) {
  UsdPerHour rate(2.5);
  Usd cost = rate * Hours(4);
  EXPECT_DOUBLE_EQ(cost.value, 10.0);
  EXPECT_LT(Usd(1), Usd(2));
}

TEST(Dates, DaysFromCivilCountsFromTheEpochAcrossLeapYears) {
  EXPECT_EQ(dates::days_from_civil(1970, 1, 1), 0);
  EXPECT_EQ(dates::days_from_civil(1969, 12, 31), -1);
  // 2000 is a leap year (divisible by 400): Feb 29 exists, March 1 is next.
  EXPECT_EQ(dates::days_from_civil(2000, 3, 1) - dates::days_from_civil(2000, 2, 28), 2);
  // 2100 is not (divisible by 100, not by 400).
  EXPECT_EQ(dates::days_from_civil(2100, 3, 1) - dates::days_from_civil(2100, 2, 28), 1);
  // 2024-12-03 is day 20060 (date -d 2024-12-03 +%s / 86400).
  EXPECT_EQ(dates::days_from_civil(2024, 12, 3), 20060);
}

TEST(Csv, QuotedFieldsCommasAndNewlines) {
  auto t = csv::parse("a,b,c\n1,\"x, y\",\"multi\nline\"\n\n2,\"q\"\"uote\",3\n", "t.csv");
  ASSERT_TRUE(t) << t.error().to_string();
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0].fields[1], "x, y");
  EXPECT_EQ(t->rows[0].fields[2], "multi\nline");
  EXPECT_EQ(t->rows[1].line, 5);
  EXPECT_EQ(t->rows[1].fields[1], "q\"uote");
}

TEST(Csv, FieldCountMismatchNamesTheLine) {
  auto t = csv::parse("a,b\n1,2\n3\n", "bad.csv");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().to_string(), "bad.csv:3: expected 2 fields as in the header, found 1");
}

// A column named twice: readers take the first, and the second's values
// would be read as nothing.
TEST(Csv, AColumnNamedTwiceIsRefused) {
  auto t = csv::parse("id,value,id\n1,2,3\n", "dup.csv");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().to_string(), "dup.csv:1: id: column 'id' is named twice in the header");
  EXPECT_TRUE(csv::parse("id,,\n1,2,3\n", "blank.csv"));  // unnamed columns are no names
}

// The duplicate check compared every pair of names: 200,000 columns took
// 31 s. Now one pass; the repeat is still found, at its own name.
TEST(Csv, AWideHeaderIsCheckedForRepeatsInOnePass) {
  std::string header = "id";
  for (int i = 0; i < 200000; ++i) header += ",x" + std::to_string(i);
  auto wide = csv::parse(header + "\n", "wide.csv");
  ASSERT_TRUE(wide) << wide.error().to_string();
  EXPECT_EQ(wide->header.size(), 200001u);
  auto t = csv::parse(header + ",x199999\n", "wide.csv");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().to_string(),
            "wide.csv:1: x199999: column 'x199999' is named twice in the header");
}

TEST(Csv, UnterminatedQuoteAndEmpty) {
  EXPECT_FALSE(csv::parse("a,b\n1,\"2\n", "x.csv"));
  auto e = csv::parse("", "empty.csv");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, ErrorCode::kInvalidArgument);
}

TEST(Csv, RowReaderRejectsNanAndText) {
  auto t = csv::parse("price,name\nnan,x\nabc,y\n1.5,z\n", "p.csv");
  ASSERT_TRUE(t);
  csv::RowReader r0(*t, t->rows[0]);
  auto v = r0.number("price");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().where.line, 2);
  EXPECT_EQ(v.error().where.field, "price");
  EXPECT_FALSE(csv::RowReader(*t, t->rows[1]).number("price"));
  EXPECT_DOUBLE_EQ(*csv::RowReader(*t, t->rows[2]).number("price"), 1.5);
  EXPECT_FALSE(csv::RowReader(*t, t->rows[2]).number("nope"));
}

TEST(Strings, FoldMatchesAzureFamilyNames) {
  EXPECT_EQ(strings::fold("Standard NCASv3_T4 Family"), strings::fold("standardNCASv3T4Family"));
  EXPECT_EQ(strings::closest("finetun", {"train", "finetune", "infer"}), "finetune");
  EXPECT_FALSE(strings::closest("zzzzzz", {"train", "finetune"}));
  EXPECT_EQ(strings::did_you_mean("spto", {"payg", "spot"}), "; did you mean 'spot'?");
  EXPECT_EQ(strings::did_you_mean("zzzzzz", {"payg", "spot"}), "");
  EXPECT_FALSE(strings::parse_double("inf"));
  EXPECT_FALSE(strings::parse_double("1.2x"));
  EXPECT_EQ(*strings::parse_double("1e3"), 1000.0);
}

TEST(Strings, WrapKeepsEveryLineWithinItsWidth) {
  // Width 10, continuation lines indented by 2; the first line may be 12.
  EXPECT_EQ(strings::wrap("aaa bbb ccc ddd eee", 10, 2, 12), "aaa bbb ccc\n  ddd eee");
  EXPECT_EQ(strings::wrap("aaa bbb ccc ddd eee", 10, 2), "aaa bbb\n  ccc ddd\n  eee");
  // A word longer than the width gets a line of its own; none is empty.
  EXPECT_EQ(strings::wrap("a verylongword b", 5, 1), "a\n verylongword\n b");
  // Runs of spaces inside a line are kept.
  EXPECT_EQ(strings::wrap("x  [y]", 20, 0), "x  [y]");
  EXPECT_EQ(strings::wrap("", 10, 2), "");
}

TEST(Json, SyntaxErrorHasLineAndColumn) {
  auto j = files::parse_json("{\n  \"a\": 1,\n  \"b\": ]\n}", "x.json");
  ASSERT_FALSE(j);
  EXPECT_EQ(j.error().where.file, "x.json");
  EXPECT_EQ(j.error().where.line, 3);
  EXPECT_FALSE(files::parse_json("   ", "e.json"));
}

// A cell quotes input (a cost export's resource name): no table prints a
// control a terminal would act on.
TEST(TextTable, EscapesControlsInCells) {
  TextTable t;
  t.add_column("vm");
  t.add_row({"steady\x1b[31m"});
  EXPECT_EQ(t.render().find('\x1b'), std::string::npos) << t.render();
  EXPECT_NE(t.render().find("steady\\x1b[31m"), std::string::npos) << t.render();
}

TEST(TextTable, AlignsColumns) {
  TextTable t;
  t.add_column("size");
  t.add_column("usd", TextTable::Align::kRight);
  t.add_row({"A", "1.00"});
  t.add_row({"Longer", "10.00"});
  EXPECT_EQ(t.render(), "size      usd\n------  -----\nA        1.00\nLonger  10.00\n");
}

// Text fits the terminal: words wrap, a word wider than a line is broken.
TEST(Strings, WrapTextKeepsEveryLineWithinTheWidth) {
  EXPECT_EQ(strings::wrap_text("aa bb cc", 5, 0, 2), "aa bb\n  cc\n");
  EXPECT_EQ(strings::wrap_text("x https://example.com/long", 10, 2, 2),
            "  x\n  https://\n  example.\n  com/long\n");
  for (const std::string& line : strings::split(
           strings::wrap_text(std::string(50, 'a') + " b \xc3\xa9\xc3\xa9", 12, 1, 3), '\n')) {
    size_t cols = 0;
    for (char c : line) cols += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
    EXPECT_LE(cols, 12u) << line;
  }
  EXPECT_EQ(strings::short_source("Azure Retail Prices API, 2026-05-20 (via anycloud-sh/catalog)"),
            "Azure Retail Prices API, 2026-05-20");
  EXPECT_EQ(strings::short_source("workload file"), "workload file");
}

// A narrow terminal loses the least useful columns first, and only as many as needed.
TEST(TextTable, RenderFittingDropsColumnsInOrderUntilItFits) {
  TextTable t;
  t.add_column("size");
  t.add_column("series");
  t.add_column("region");
  t.add_column("usd", TextTable::Align::kRight);
  t.add_row({"NC24ads_A100_v4", "NCads_A100_v4", "southcentralus", "3.67"});
  const std::string all = t.render();
  std::vector<std::string> dropped;
  EXPECT_EQ(t.render_fitting(200, {"series", "region"}, &dropped), all);
  EXPECT_TRUE(dropped.empty());
  const std::string narrow = t.render_fitting(40, {"series", "region"}, &dropped);
  EXPECT_EQ(dropped, (std::vector<std::string>{"series"}));
  EXPECT_EQ(narrow.find("NCads_A100_v4"), std::string::npos);
  EXPECT_NE(narrow.find("southcentralus"), std::string::npos);
  EXPECT_EQ(narrow.substr(0, narrow.find('\n')), "size             region           usd");
}

TEST(Names, RegionSizeResourceAndEmailPatterns) {
  EXPECT_TRUE(names::is_region("eastus"));
  EXPECT_TRUE(names::is_region("eastus2euap"));
  EXPECT_FALSE(names::is_region("EastUS"));
  EXPECT_FALSE(names::is_region("eastus$(touch /tmp/x)"));
  EXPECT_FALSE(names::is_region("east us"));
  EXPECT_FALSE(names::is_region("eastus\n"));
  EXPECT_FALSE(names::is_region("[concat('a')]"));
  EXPECT_FALSE(names::is_region(""));
  EXPECT_TRUE(names::is_size("Standard_NC24ads_A100_v4"));
  EXPECT_TRUE(names::is_size("Standard_NC24lds_xl_RTXPRO6000BSE_v6"));
  EXPECT_FALSE(names::is_size("Standard_NC6`id`"));
  EXPECT_FALSE(names::is_size("NC6s_v3"));
  EXPECT_FALSE(names::is_size("Standard_"));
  EXPECT_TRUE(names::is_resource_name("team-a.rg_(1)"));
  EXPECT_FALSE(names::is_resource_name("rg."));
  EXPECT_FALSE(names::is_resource_name("rg;rm"));
  EXPECT_TRUE(names::is_email("ops+gpu@example.co.uk"));
  EXPECT_FALSE(names::is_email("a@b"));
  EXPECT_FALSE(names::is_email("a\"@example.com"));
  EXPECT_FALSE(names::is_email("a@example..com"));
  auto e = names::check_region("east\x01us", Where{"p.json", 0, 0, "options[0].region"});
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("east\\x01us"), std::string::npos) << e.error().message;
  EXPECT_EQ(e.error().where.field, "options[0].region");
}

TEST(Names, ShellQuoteIsInertInBash) {
  // Each hostile value, quoted, must come back from bash byte for byte and
  // run nothing (the marker file must not appear).
  const std::string marker = ::testing::TempDir() + "gpuplan_shell_quote_marker";
  std::remove(marker.c_str());
  const std::vector<std::string> hostile = {"eastus$(touch " + marker + ")",
                                            "`touch " + marker + "`",
                                            "a'b\"c\\d",
                                            "x;touch " + marker,
                                            "$HOME ${PATH} *",
                                            "line\nbreak",
                                            "",
                                            "'",
                                            "''\\'"};
  for (const std::string& v : hostile) {
    const std::string out = ::testing::TempDir() + "gpuplan_shell_quote_out";
    const std::string script = "printf '%s' " + names::shell_quote(v) + " > " + out;
    const std::string cmd = "bash -c " + names::shell_quote(script);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << v;
    auto text = files::read_text(out);
    ASSERT_TRUE(text) << v;
    EXPECT_EQ(*text, v);
  }
  EXPECT_FALSE(std::ifstream(marker).good()) << "a quoted value ran a command";
  EXPECT_EQ(names::powershell_quote("it's"), "'it''s'");
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// Issue 15, item 4: inputs read whole are capped and must be UTF-8.
TEST(Files, ReadTextRefusesDevicesOverTheCapDirectoriesAndNonUtf8) {
  files::set_max_input_bytes(size_t{1} << 20);
  auto zero = files::read_text("/dev/zero");
  files::set_max_input_bytes(files::kDefaultMaxInputBytes);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(zero.error().to_string(),
            "/dev/zero: larger than the 1 MiB an input read whole may be "
            "(raise with --max-input-mib)");
  auto dir = files::read_text("/");
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().code, ErrorCode::kInvalidArgument);
  const std::string path = ::testing::TempDir() + "/latin1.yaml";
  std::ofstream(path) << "kind: train\nname: caf\xe9\n";
  auto latin1 = files::read_text(path);
  ASSERT_FALSE(latin1);
  EXPECT_EQ(latin1.error().to_string(), path + ":2:10: not UTF-8 text (byte 0xe9)");
  std::ofstream(path) << "name: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n";
  EXPECT_TRUE(files::read_text(path));
}

// An output path that is a device, a FIFO or a symbolic link stays what it
// is: a device or FIFO is written in place (as a shell redirect writes it);
// a link keeps its target, which gets the content. Renaming a temp file
// over each once replaced the node itself (/dev/full became a plain file).
TEST(Files, WriteAtomicKeepsDevicesFifosAndLinks) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "write_atomic";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Devices of our own (null: 1,3; full: 1,7), so that a regression replaces
  // them and not the machine's; creating one needs CAP_MKNOD (CI runs as root).
  const fs::path null = dir / "null", full = dir / "full";
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0 &&
      ::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) {
    ASSERT_TRUE(files::write_atomic(null.string(), "x\n"));
    EXPECT_TRUE(fs::is_character_file(null));
    EXPECT_FALSE(files::write_atomic(full.string(), "x\n"));  // ENOSPC: said, not replaced
    EXPECT_TRUE(fs::is_character_file(full));
  }
  const fs::path target = dir / "target.txt", link = dir / "link.txt";
  std::ofstream(target) << "old\n";
  fs::create_symlink(target.filename(), link);
  ASSERT_TRUE(files::write_atomic(link.string(), "new\n"));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(*files::read_text(target.string()), "new\n");
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { std::getline(std::ifstream(fifo), got); });
  ASSERT_TRUE(files::write_atomic(fifo.string(), "through\n"));
  reader.join();
  EXPECT_EQ(got, "through");
  EXPECT_TRUE(fs::is_fifo(fifo));
  auto is_dir = files::write_atomic(dir.string(), "x");
  ASSERT_FALSE(is_dir);
  EXPECT_EQ(is_dir.error().code, ErrorCode::kInvalidArgument);
}

// Several files, all or nothing: one that cannot be written (its directory
// does not exist) leaves none of the others written, and no temp file;
// when all can be, all are.
TEST(Files, WriteAllOrNothingLeavesNoneWhenOneFails) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "write_all";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string a = (dir / "a.csv").string(), b = (dir / "b.json").string();
  auto bad = files::write_all_or_nothing(
      {{a, "a\n"}, {(dir / "missing" / "c.html").string(), "c"}, {b, "{}\n"}});
  ASSERT_FALSE(bad);
  EXPECT_FALSE(fs::exists(a));
  EXPECT_FALSE(fs::exists(b));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 0);
  ASSERT_TRUE(files::write_all_or_nothing({{a, "a\n"}, {b, "{}\n"}}));
  EXPECT_EQ(*files::read_text(a), "a\n");
  EXPECT_EQ(*files::read_text(b), "{}\n");
}

TEST(Strings, TerminalControlsAreFound) {
  EXPECT_FALSE(strings::terminal_control_at("caf\xc3\xa9 \xe2\x82\xac llama-3.1-8b"));
  EXPECT_EQ(strings::terminal_control_at("a\x1b[31m"), 1u);       // ESC
  EXPECT_EQ(strings::terminal_control_at("ab\x07"), 2u);          // BEL
  EXPECT_EQ(strings::terminal_control_at("x\x7f"), 1u);           // DEL
  EXPECT_EQ(strings::terminal_control_at("\xc2\x9b"), 0u);        // C1 CSI
  EXPECT_EQ(strings::terminal_control_at("ab\xe2\x80\xae"), 2u);  // U+202E
  EXPECT_EQ(strings::terminal_control_at("\xe2\x81\xa6"), 0u);    // U+2066
  EXPECT_FALSE(strings::terminal_control_at("\xe2\x80\x94"));     // an em dash
}

TEST(Strings, EscapeControlsLeavesTextAndEscapesWhatATerminalActsOn) {
  const std::string text = "caf\xc3\xa9 \xe2\x82\xac \xe2\x80\x94 llama-3.1-8b \\x1b";
  EXPECT_EQ(strings::escape_controls(text), text);
  EXPECT_EQ(strings::escape_controls("a\x1b]0;pwned\x07!"), "a\\x1b]0;pwned\\x07!");
  EXPECT_EQ(strings::escape_controls("x\x7f\t"), "x\\x7f\\x09");
  EXPECT_EQ(strings::escape_controls("\xc2\x9bm"), "\\u009bm");                // C1 CSI
  EXPECT_EQ(strings::escape_controls("lo\xe2\x80\xaera"), "lo\\u202era");      // RLO
  EXPECT_EQ(strings::escape_controls("\xe2\x81\xa6x"), "\\u2066x");            // LRI
  EXPECT_EQ(strings::escape_controls("ab\xc0\xaf\x80"), "ab\\xc0\\xaf\\x80");  // not UTF-8
  EXPECT_EQ(strings::escape_controls("x\xe2\x82"), "x\\xe2\\x82");             // cut short
  EXPECT_EQ(strings::escape_controls("a\nb"), "a\\x0ab");
  EXPECT_EQ(strings::escape_controls("a\nb", /*keep_newlines=*/true), "a\nb");
}

// Every error is worded by Error::to_string: what it quotes is escaped there.
TEST(Result, ErrorTextEscapesWhatItQuotes) {
  const Error e{ErrorCode::kInvalidArgument, "unknown key '\x1b]0;pwned\x07'",
                Where{"w\x1b[31m.yaml", 3, 1, "fle\x1b[31met"}};
  EXPECT_EQ(e.to_string(), "w\\x1b[31m.yaml:3:1: fle\\x1b[31met: unknown key '\\x1b]0;pwned\\x07'");
}

TEST(Strings, Utf8ValidationFollowsRfc3629) {
  EXPECT_FALSE(strings::invalid_utf8_at("plain, caf\xc3\xa9, \xe2\x82\xac, \xf0\x9f\x98\x80"));
  EXPECT_EQ(strings::invalid_utf8_at("ab\xc0\xaf"), 2u);        // overlong '/'
  EXPECT_EQ(strings::invalid_utf8_at("\xed\xa0\x80"), 0u);      // a UTF-16 surrogate
  EXPECT_EQ(strings::invalid_utf8_at("x\xe2\x82"), 1u);         // cut short
  EXPECT_EQ(strings::invalid_utf8_at("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(strings::invalid_utf8_at("\x80"), 0u);              // a lone continuation
  EXPECT_EQ(strings::line_column("a\nbc", 3), (std::pair<int, int>{2, 2}));
}

// `cost --hours 1e300` once exited 4: fixed() cut the text at 64 bytes and
// the money formatter found no decimal point.
TEST(Json, NumbersBeyondADoubleAreAnErrorWithTheirPlace) {
  auto j = files::parse_json("{\n  \"count\": 1e400\n}", "p.json");
  ASSERT_FALSE(j);
  EXPECT_EQ(j.error().to_string(),
            "p.json:2:12: number 1e400 is out of range (larger than a double holds)");
}

TEST(Csv, IntegersBeyondTwoToThe53AreRefused) {
  auto t = csv::parse("n\n1e300\n", "n.csv");
  ASSERT_TRUE(t);
  csv::RowReader r(*t, t->rows[0]);
  auto n = r.integer("n");
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().to_string(), "n.csv:2: n: expected an integer of at most 2^53 in size");
}

TEST(Strings, FixedPrintsHugeNumbersWhole) {
  EXPECT_EQ(strings::fixed(1e300, 2).size(), 301u + 3u);
  EXPECT_EQ(strings::fixed(2.5, 1), "2.5");
}

// The one rounding rule of text and CSV (core/format.h; docs/json.md).
TEST(Format, MoneyIsCentsOrThreeSignificantDigitsBelowTenCents) {
  using format::Form;
  using format::Kind;
  EXPECT_EQ(format::usd(1234.5), "$1,234.50");
  EXPECT_EQ(format::usd(1234567.891), "$1,234,567.89");
  EXPECT_EQ(format::usd(0), "$0.00");
  EXPECT_EQ(format::usd(6.98), "$6.98");
  EXPECT_EQ(format::usd(0.5), "$0.50");
  EXPECT_EQ(format::usd(0.748), "$0.75");  // cents from ten cents up
  // A spot hour of a small size, a sub-cent amount: never "$0.05" or "$0.00".
  EXPECT_EQ(format::usd(0.052612), "$0.0526");
  EXPECT_EQ(format::usd(0.001234), "$0.00123");
  EXPECT_EQ(format::usd(-12.346), "-$12.35");
  EXPECT_EQ(format::usd(-0.004), "-$0.004");
  EXPECT_EQ(format::usd(-0.001), "-$0.001");
  EXPECT_EQ(format::number(1234.567, Kind::kMoney, Form::kCsv), "1234.57");
  EXPECT_EQ(format::number(0.052612, Kind::kMoney, Form::kCsv), "0.0526");
  EXPECT_EQ(format::number(std::nan(""), Kind::kMoney), "nan");
}

TEST(Format, RatesKeepThreeSignificantDigitsAndTheirWholePart) {
  EXPECT_EQ(format::rate(12345.678), "12346");
  EXPECT_EQ(format::rate(98.34), "98.3");
  EXPECT_EQ(format::rate(1.5), "1.5");
  EXPECT_EQ(format::rate(0.012345), "0.0123");
  EXPECT_EQ(format::rate(0), "0");
  EXPECT_EQ(format::rate(-0.0001), "-0.0001");
  EXPECT_EQ(format::trimmed(13.950, 2), "13.95");
  EXPECT_EQ(format::trimmed(48.0, 2), "48");
  EXPECT_EQ(format::trimmed(-0.001, 2), "0");
}

}  // namespace
}  // namespace gpuplan
