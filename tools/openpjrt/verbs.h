// Entry points of the CLI's verbs. Each takes the arguments after `openpjrt` (argv[0] is the verb)
// and returns the process exit status.
#pragma once

#include <string>
#include <vector>

#include "src/ir/parser.h"

namespace openpjrt::tools {

int OptMain(int argc, char** argv);
int RunMain(int argc, char** argv);
int BenchMain(int argc, char** argv);
int InfoMain(int argc, char** argv);

// Reads a whole file ("-" for standard input). False with a message in *error on failure.
bool ReadFile(const std::string& path, std::string* out, std::string* error);

// For an argument that no option of `verb` claimed: takes it as the input file, or reports an
// unknown option or a second file. Returns 0 when taken, else the exit status (2).
int TakeInputArg(const char* verb, const std::string& arg, std::string* file, const char* usage);

// Reads `file` and splits it into modules (at `// -----` lines when `split`). On failure prints
// the reason and returns the exit status (1 for an unreadable file, 2 for none given); else 0.
int LoadInput(const char* verb, const std::string& file, bool split, const char* usage,
              std::string* text, std::vector<ir::SourceChunk>* chunks);

}  // namespace openpjrt::tools
