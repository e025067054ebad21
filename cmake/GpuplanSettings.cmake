# Shared compile settings as interface targets (ccache's StandardSettings.cmake).
add_library(gpuplan_settings INTERFACE)
target_compile_features(gpuplan_settings INTERFACE cxx_std_20)
target_compile_options(gpuplan_settings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-missing-field-initializers
  # GCC 12 reports false -Wrestrict positives on "literal" + std::string.
  $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>
  # Code is -fPIC for gpuplan-serve.so; our functions are never interposed.
  -fno-semantic-interposition)
if(GPUPLAN_WERROR)
  target_compile_options(gpuplan_settings INTERFACE -Werror)
endif()
if(GPUPLAN_SANITIZE)
  target_compile_options(gpuplan_settings INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(gpuplan_settings INTERFACE -fsanitize=address,undefined)
endif()
if(GPUPLAN_FUZZ AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # libFuzzer steers by the coverage of the code under test, which lives in the
  # module libraries, not the harness: instrument everything for coverage
  # (fuzzer-no-link); only the harnesses link libFuzzer (tests/fuzz).
  target_compile_options(gpuplan_settings INTERFACE -fsanitize=fuzzer-no-link)
endif()
