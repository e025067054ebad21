// Runs a libFuzzer harness over every file in the given directories (and
// files), so the harness is exercised in ordinary builds without clang.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {
void run_file(const std::filesystem::path& p, int& n) {
  std::ifstream in(p, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  ++n;
}
}  // namespace

int main(int argc, char** argv) {
  int n = 0;
  // Always run a few degenerate inputs.
  const std::vector<std::string> builtin = {"", "\n", "{", "[]", "a,b\n1", "\xff\xfe"};
  for (const auto& s : builtin) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
    ++n;
  }
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file()) run_file(e.path(), n);
    } else if (std::filesystem::is_regular_file(p, ec)) {
      run_file(p, n);
    }
  }
  std::printf("replayed %d inputs\n", n);
  return 0;
}
