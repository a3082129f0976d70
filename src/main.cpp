#include "cli/cli.hpp"

int main(int argc, char** argv) { return predlake::cli::Main(argc, argv); }
