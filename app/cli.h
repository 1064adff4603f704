// The boundbench command line: run, list, info, theory. Returns the process exit code:
// 0 success, 1 a check failed (unless --no-fail), 2 bad usage or input.
#pragma once

namespace bb::app {

int cli_main(int argc, char** argv);

}  // namespace bb::app
