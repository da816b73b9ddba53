// Entry points of the CLI's verbs. Each takes the arguments after `openpjrt` (argv[0] is the verb)
// and returns the process exit status.
#pragma once

#include <string>

namespace openpjrt::tools {

int OptMain(int argc, char** argv);
int RunMain(int argc, char** argv);

// Reads a whole file ("-" for standard input). False with a message in *error on failure.
bool ReadFile(const std::string& path, std::string* out, std::string* error);

}  // namespace openpjrt::tools
