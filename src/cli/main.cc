#include "cli/cli.h"

int main(int argc, char** argv) { return gpuplan::cli::run(argc, argv); }
