// The yardstick program: runs the instances of the third-party kernel files it was built with
// (MLX, ggml; scripts/yardstick.sh) and prints the table. Exit status 1 when a row fails.
#include <cstdio>
#include <cstring>

#include "harness.h"

namespace metalsim::yardstick {
std::vector<Row> mlx_rows();
std::vector<Row> ggml_rows();
}  // namespace metalsim::yardstick

int main() {
  std::vector<metalsim::yardstick::Row> rows;
#ifdef METALSIM_YARDSTICK_HAS_MLX
  for (auto& r : metalsim::yardstick::mlx_rows()) rows.push_back(r);
#endif
#ifdef METALSIM_YARDSTICK_HAS_GGML
  for (auto& r : metalsim::yardstick::ggml_rows()) rows.push_back(r);
#endif
  return metalsim::yardstick::print_table(rows) == 0 ? 0 : 1;
}
