import pathlib
import re
import subprocess
import sys


def test_the_bench_prints_every_figure_and_the_scaling():
    out = subprocess.run(
        [sys.executable, "-m", "nestor.bench", "--seconds", "0.05", "--rounds", "2", "--envs", "2"]
        + ["--pairs", "3", "--steps", "5"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    rows = [line for line in out.splitlines() if re.match(r"\s+\d+\s+\d+\s+[\d.]+\s+\S", line)]
    assert len(rows) >= 4 and all(int(row.split()[0]) > 0 for row in rows)
    for what, one, two in (
        ("VecConsole RAM", "1 thread", "2 threads"),
        ("VecConsole pixels", "1 thread", "2 threads"),
        ("Independent processes, VecConsole 1 thread each, RAM", "1 process", "2 processes"),
    ):
        ratio = rf"{what}: {two} / {one} = \d+\.\d\d \(median of 3 pairs of slices, 95% interval [\d.]+-[\d.]+; interquartile [\d.]+-[\d.]+\)"
        side = r"\s+(\d+) frames/s,\s+[\d.]+ us of CPU a frame, [\d.]+ cores busy"
        found = re.search(rf"{ratio}\n    {one}:{side}\n    {two}:{side}", out)
        assert found, out
        assert int(found.group(1)) > 0 and int(found.group(2)) > 0
    if pathlib.Path("/proc/stat").is_file():
        others = re.findall(r"other processes: [\d.]+ cores \(median\); (\d+) pairs with under 0.15 cores\b", out)
        assert len(others) == 3 and all(int(n) <= 3 for n in others), out


def test_the_medians_interval_holds_the_order_statistics_around_it():
    from nestor.bench import median_interval

    # 100 values: the 95% interval of the median runs from the 41st to the 60th (k = 40).
    assert median_interval(list(range(100))) == (40, 59)
    # Too few values for any confidence: the interval is the whole range.
    assert median_interval([3.0, 1.0, 2.0]) == (1.0, 3.0)
