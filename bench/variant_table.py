#!/usr/bin/env python3
"""The table docs/performance.md prints for kernels_bench's JSON: per case, the native baseline,
both execution modes in both kernel variants, and the checked variant's cost over the fast one.

Run kernels_bench with METALSIM_BENCH_CHECKED=1 (the checked variant's columns, else "nan") and
--benchmark_format=json (or bench/scaling.sh's JSON_DIR), once or several times; each figure is
the median over the files given, each ratio the median of the per-run ratios:

    bench/variant_table.py kernels_16_run1.json kernels_16_run2.json
"""
import json
import statistics
import sys


def median_of(runs, i, key):
    return statistics.median(r[i].get(key, float("nan")) for r in runs)


def median_ratio(runs, i, num, den):
    """NaN where a run lacks a column (the checked variant's without METALSIM_BENCH_CHECKED)."""
    return statistics.median(r[i].get(num, float("nan")) / r[i][den] for r in runs)


def main(paths):
    runs = [json.load(open(p))["benchmarks"] for p in paths]
    print("| case | native | lane loops, fast | lane loops, checked | fibers, fast | "
          "fibers, checked | checked / fast |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for i, bench in enumerate(runs[0]):
        name = bench["name"].split("/")[0]
        cells = [f"`{name}`", f"{median_of(runs, i, 'baseline_ms'):.2f}"]
        for mode in ("loops", "fibers"):
            cells.append(f"{median_of(runs, i, mode + '_ms'):.2f} "
                         f"({median_ratio(runs, i, mode + '_ms', 'baseline_ms'):.2f}x)")
            cells.append(f"{median_of(runs, i, mode + '_checked_ms'):.2f}")
        cells.append(f"{median_ratio(runs, i, 'loops_checked_ms', 'loops_ms'):.2f}")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
