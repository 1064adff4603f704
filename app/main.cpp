#include "harness/cli.h"

int main(int argc, char** argv) { return bb::cli_main(argc, argv); }
