// metalsim-front: `metalsim-front in.metal -o out.cpp [-I dir]... [-MF out.d]`
// Translates one .metal file into C++ (docs/front.md). Errors read `file.metal:LINE: error: ...`
// and exit with status 1; the output file is only written on success.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "simt/front/front.h"

namespace {

int usage() {
  std::cerr << "usage: metalsim-front IN.metal -o OUT.cpp [-I DIR]... [-MF DEPFILE]\n";
  return 2;
}

bool write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, output, depfile;
  std::vector<std::string> includes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" && i + 1 < argc) {
      output = argv[++i];
    } else if (a == "-MF" && i + 1 < argc) {
      depfile = argv[++i];
    } else if (a == "-I" && i + 1 < argc) {
      includes.emplace_back(argv[++i]);
    } else if (a.rfind("-I", 0) == 0 && a.size() > 2) {
      includes.push_back(a.substr(2));
    } else if (!a.empty() && a[0] != '-' && input.empty()) {
      input = a;
    } else {
      return usage();
    }
  }
  if (input.empty() || output.empty()) return usage();
  metalsim::front::Front front(includes);
  std::string code;
  try {
    code = front.translate_file(input);
  } catch (const metalsim::front::FrontError& e) {
    std::cerr << front.format_error(e) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << input << ": error: " << e.what() << "\n";
    return 1;
  }
  if (!write(output, code)) {
    std::cerr << "metalsim-front: cannot write " << output << "\n";
    return 1;
  }
  if (!depfile.empty()) {
    std::string deps = output + ":";
    for (const std::string& f : front.files()) deps += " \\\n  " + f;
    if (!write(depfile, deps + "\n")) {
      std::cerr << "metalsim-front: cannot write " << depfile << "\n";
      return 1;
    }
  }
  return 0;
}
