#!/usr/bin/env python3
"""MLX's C++ test suite on metalsim (issue 26 item 3): runs MLX's doctest binary one source file at
a time on MLX's GPU device (metalsim) and writes what each test case did.

  scripts/mlx_tests.py run TESTS_BINARY OUT_DIR [--timeout S] [--files a_tests.cpp,...]
  scripts/mlx_tests.py table OUT_DIR [OUT_DIR ...]

`run` takes METALSIM_CHECKS and METALSIM_MODE from the environment, as the binary does. Each
file's cases run in one process with doctest's XML reporter (written as the cases run). A process
that dies or passes --timeout inside a case records that case as `crashed` or `timeout` and runs
the file again from the case after it, so one abort does not hide the cases behind it. OUT_DIR
gets results.json (case -> file, line, status, seconds, failed expressions), the XML and the
standard error of every process (metalsim's reports), and summary.md.

`table` prints one markdown table with a column per OUT_DIR (a run's label is its directory's
name), the counts per source file, then the cases that did not pass in any run.
docs/mlx_backend.md has the runs, their tables and each failure's classification.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path


def list_cases(binary):
    """Every test case with its file and line, in doctest's order (file, then line)."""
    out = subprocess.run([binary, "-r=xml", "--test-case=__metalsim_lists_no_case__"],
                         capture_output=True, text=True, check=False).stdout
    root = ET.fromstring(out)
    cases = []
    for tc in root.iter("TestCase"):
        cases.append({"name": tc.get("name"), "file": os.path.basename(tc.get("filename")),
                      "line": int(tc.get("line"))})
    return cases


def doctest_pattern(name):
    # doctest's filters are comma-separated with * and ? wildcards: a comma in a name is matched
    # by ?, which may match one more case with the same name but for that character (none in MLX).
    return name.replace(",", "?")


def parse_partial_xml(text):
    """The cases that finished in a (possibly cut) XML report, and the one that started last."""
    finished, started = {}, None
    # Cut reports are closed by hand: the elements that finished are complete.
    for closing in ("", "</TestCase></TestSuite></doctest>", "</SubCase></TestCase></TestSuite></doctest>",
                    "</SubCase></SubCase></TestCase></TestSuite></doctest>"):
        try:
            root = ET.fromstring(text + closing)
            break
        except ET.ParseError:
            root = None
    if root is None:
        return finished, started
    for tc in root.iter("TestCase"):
        if tc.get("skipped") == "true":
            continue
        result = tc.find("OverallResultsAsserts")
        name = tc.get("name")
        if result is None:
            started = name
            continue
        failures = []
        for expr in tc.iter("Expression"):
            if expr.get("success") == "false":
                original = (expr.findtext("Original") or "").strip()
                expanded = (expr.findtext("Expanded") or "").strip()
                failures.append(f"{os.path.basename(expr.get('filename', ''))}:{expr.get('line')}: "
                                f"{original} ({expanded})")
        for exc in tc.iter("Exception"):
            failures.append("exception: " + (exc.text or "").strip())
        ok = result.get("test_case_success") == "true"
        finished[name] = {"status": "passed" if ok else "failed",
                          "seconds": float(result.get("duration", "0") or 0),
                          "failures": failures[:10]}
    return finished, started


def run_file(binary, file, cases, out_dir, timeout):
    """Runs one source file's cases, again after any case that killed the process."""
    results, attempt = {}, 0
    names = [c["name"] for c in cases]
    while len(results) < len(names):
        attempt += 1
        stem = f"{file}.{attempt}"
        xml_path, err_path = out_dir / f"{stem}.xml", out_dir / f"{stem}.stderr"
        cmd = [binary, f"--source-file=*{file}", "-r=xml", f"-o={xml_path}", "--duration=true"]
        done = [n for n in names if n in results]
        if done:
            cmd.append("--test-case-exclude=" + ",".join(doctest_pattern(n) for n in done))
        start = time.monotonic()
        with open(err_path, "w") as err:
            try:
                proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=err, timeout=timeout,
                                      check=False)
                code, timed_out = proc.returncode, False
            except subprocess.TimeoutExpired:
                code, timed_out = None, True
        text = xml_path.read_text(errors="replace") if xml_path.exists() else ""
        finished, started = parse_partial_xml(text)
        results.update({n: r for n, r in finished.items() if n in names})
        clean_exit = not timed_out and code is not None and code >= 0
        if clean_exit and started is None:
            # Every case ran (doctest's exit status is 1 when one failed): those not reported
            # did not match the filter, which never happens for a file's own cases.
            for n in names:
                results.setdefault(n, {"status": "not run", "seconds": 0.0, "failures": []})
            break
        victim = started
        if victim is None:  # died between cases: blame the first case not finished
            victim = next(n for n in names if n not in results)
        status = "timeout" if timed_out else "crashed"
        detail = (f"{status} after {time.monotonic() - start:.0f} s (exit status {code}); "
                  f"standard error: {err_path.name}")
        # Recorded, so the next process excludes it with the cases that finished.
        results[victim] = {"status": status, "seconds": time.monotonic() - start,
                           "failures": [detail]}
    return results


def run(args):
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    binary = str(Path(args.binary).resolve())
    cases = list_cases(binary)
    by_file = {}
    for c in cases:
        by_file.setdefault(c["file"], []).append(c)
    files = sorted(by_file) if not args.files else args.files.split(",")
    results = {}
    total_start = time.monotonic()
    for f in files:
        start = time.monotonic()
        r = run_file(binary, f, by_file[f], out_dir, args.timeout)
        for c in by_file[f]:
            results[c["name"]] = {"file": f, "line": c["line"], **r[c["name"]]}
        counts = {}
        for c in by_file[f]:
            counts[r[c["name"]]["status"]] = counts.get(r[c["name"]]["status"], 0) + 1
        print(f"{f}: {time.monotonic() - start:.0f} s {counts}", flush=True)
        (out_dir / "results.json").write_text(json.dumps(results, indent=1))
    meta = {"checks": os.environ.get("METALSIM_CHECKS", "default"),
            "mode": os.environ.get("METALSIM_MODE", "auto"),
            "seconds": round(time.monotonic() - total_start)}
    (out_dir / "meta.json").write_text(json.dumps(meta))
    (out_dir / "summary.md").write_text(table([out_dir]))
    print(table([out_dir]))


def table(dirs):
    runs = []
    for d in dirs:
        d = Path(d)
        runs.append((d.name, json.loads((d / "results.json").read_text()),
                     json.loads((d / "meta.json").read_text()) if (d / "meta.json").exists() else {}))
    files = sorted({r["file"] for _, res, _ in runs for r in res.values()})
    lines = ["| file | cases | " + " | ".join(
        f"{label} ({meta.get('checks', '?')}, {meta.get('mode', '?')})" for label, _, meta in runs)
             + " |", "| --- | --- |" + " --- |" * len(runs)]
    statuses = ("passed", "failed", "crashed", "timeout", "not run")

    def cell(res, file=None):
        counts = {s: 0 for s in statuses}
        for r in res.values():
            if file is None or r["file"] == file:
                counts[r["status"]] += 1
        text = f"{counts['passed']} passed"
        for s in statuses[1:]:
            if counts[s]:
                text += f", {counts[s]} {s}"
        return text

    for f in files:
        n = max(sum(1 for r in res.values() if r["file"] == f) for _, res, _ in runs)
        lines.append(f"| `{f}` | {n} | " + " | ".join(cell(res, f) for _, res, _ in runs) + " |")
    n = max(len(res) for _, res, _ in runs)
    lines.append(f"| all | {n} | " + " | ".join(cell(res) for _, res, _ in runs) + " |")
    lines.append("")
    lines.append("| seconds | | " + " | ".join(str(meta.get("seconds", "?")) for _, _, meta in runs)
                 + " |")
    lines.append("")
    bad = sorted({name for _, res, _ in runs for name, r in res.items() if r["status"] != "passed"})
    if bad:
        lines.append("Cases that did not pass in some run:")
        lines.append("")
        for name in bad:
            lines.append(f"- `{name}`:")
            for label, res, _ in runs:
                r = res.get(name)
                if r is None or r["status"] == "passed":
                    continue
                first = r["failures"][0] if r["failures"] else ""
                lines.append(f"  - {label}: {r['status']}; {first}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run")
    p.add_argument("binary")
    p.add_argument("out_dir")
    p.add_argument("--timeout", type=int, default=1800, help="seconds per process")
    p.add_argument("--files", default="", help="comma-separated source files (default all)")
    t = sub.add_parser("table")
    t.add_argument("dirs", nargs="+")
    args = parser.parse_args()
    if args.command == "run":
        run(args)
    else:
        sys.stdout.write(table(args.dirs))


if __name__ == "__main__":
    main()
