// The yardstick program: runs the instances of the third-party kernel files it was built with
// (MLX, ggml; scripts/yardstick.sh) and prints the table. Exit status 1 when a row fails.
//   yardstick           every instance
//   yardstick gemv      only MLX's gemv.metal (every instance of it)
#include <cstdio>
#include <cstring>
#include <string>

#include "harness.h"

namespace metalsim::yardstick {
std::vector<Row> mlx_rows();
std::vector<Row> mlx_gemv_only();
std::vector<Row> ggml_rows();
}  // namespace metalsim::yardstick

int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  if (!only.empty() && only != "gemv") {
    std::fprintf(stderr, "yardstick: unknown part '%s' (gemv, or nothing for every instance)\n",
                 only.c_str());
    return 2;
  }
  std::vector<metalsim::yardstick::Row> rows;
#ifdef METALSIM_YARDSTICK_HAS_MLX
  for (auto& r :
       only == "gemv" ? metalsim::yardstick::mlx_gemv_only() : metalsim::yardstick::mlx_rows())
    rows.push_back(r);
#endif
#ifdef METALSIM_YARDSTICK_HAS_GGML
  if (only.empty())
    for (auto& r : metalsim::yardstick::ggml_rows()) rows.push_back(r);
#endif
  return metalsim::yardstick::print_table(rows) == 0 ? 0 : 1;
}
