#include "app/cli.h"

int main(int argc, char** argv) { return bb::app::cli_main(argc, argv); }
