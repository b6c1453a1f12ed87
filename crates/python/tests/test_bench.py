import re
import subprocess
import sys


def test_the_bench_prints_every_figure_and_the_ratios():
    out = subprocess.run(
        [sys.executable, "-m", "nestor.bench", "--seconds", "0.05", "--rounds", "2", "--envs", "2"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    rows = [line for line in out.splitlines() if re.match(r"\s+\d+\s+\d+\s+[\d.]+\s+\S", line)]
    assert any("2 processes" in row for row in rows)
    assert all(int(row.split()[0]) > 0 for row in rows)
    assert re.search(r"this machine's own scaling\): \d+\.\d\d", out)
    for kind in ("RAM", "pixels"):
        assert re.search(rf"VecConsole {kind}: 2 threads / 1 thread = \d+\.\d\d \(wall, median of 2 rounds", out)
