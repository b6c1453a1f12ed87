"""Frames per second of nestor's Python API (and of nes-py on the same ROM when installed).

    python -m nestor.bench [--seconds S] [--rounds R] [--rom ROM] [--envs N] [--pairs P] [--slice T]

Every figure runs one frame per step (a frame per console for the vector ones) with random
buttons. The single-console figures run for S seconds after a warm-up, in each of R rounds that
take turns (so that a busy spell of the machine hits all alike); the median round is printed:
frames per second of wall time, frames per second of the process's CPU time (all its threads:
what the machine's other jobs do not change) and the cores used (CPU time over wall time).

Then the scaling from one core to two, in P rounds of short slices of T seconds: a VecConsole of
N consoles on 1 thread and one on 2 threads (RAM, then pixels), and one process stepping a
1-thread VecConsole alone and then beside a second such process (what the machine itself gives,
with nothing shared). The two sides of a pair run back to back, in turns first, so that the
machine's changes of speed, which last longer than a slice, touch both alike; the median of the
pairs' ratios is printed with its interquartile range, and the CPU time a frame costs on each
side."""

import argparse
import multiprocessing
import os
import time

import numpy as np

import nestor


# Cores other processes may use in a slice for its pair to count as run on an idle machine
# (/proc/stat counts in ticks of 10 ms: a 0.2 s slice on 2 cores has 40).
QUIET = 0.15


def rate(step, seconds):
    """Calls of `step` per second of wall time and of CPU time over `seconds` (after 30 calls
    of warm-up)."""
    for _ in range(30):
        step()
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            step()
        n += 10
    return np.array([n / (time.perf_counter() - start), n / (time.process_time() - cpu)])


def run_slice(step, seconds):
    """(calls, wall seconds, CPU seconds of this process) of `step` called for `seconds`."""
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        step()
        n += 1
    return np.array([n, time.perf_counter() - start, time.process_time() - cpu])


def vec_slices(envs, rom, threads, pixels, seed):
    """A function that steps a VecConsole of `envs` consoles on `threads` threads, random
    buttons, for a slice of the seconds it is given: (frames, wall seconds, CPU seconds)."""
    vec, rng = nestor.VecConsole(envs, rom, threads=threads), np.random.default_rng(seed)
    masks = iter(())

    def step():
        nonlocal masks
        if (pads := next(masks, None)) is None:
            masks = iter(rng.integers(0, 256, (1000, envs)).tolist())
            pads = next(masks)
        vec.step(pads, pixels=pixels)

    return lambda seconds: run_slice(step, seconds) * [envs, 1, 1]


def _vec_console_worker(envs, rom, seed, connection):
    """Runs a slice of a 1-thread VecConsole (RAM) for each number of seconds received on
    `connection` (None ends), and answers (frames, wall seconds, CPU seconds)."""
    slices = vec_slices(envs, rom, 1, False, seed)
    while (seconds := connection.recv()) is not None:
        connection.send(slices(seconds))


class TwoProcesses:
    """Two worker processes, each with a 1-thread VecConsole, that run a slice on request: one
    alone, or both at once."""

    def __init__(self, envs, rom):
        context = multiprocessing.get_context("spawn")
        self.connections, self.workers = [], []
        for seed in range(2):
            ours, theirs = context.Pipe()
            worker = context.Process(target=_vec_console_worker, args=(envs, rom, seed, theirs), daemon=True)
            worker.start()
            self.connections.append(ours)
            self.workers.append(worker)

    def run(self, processes, seconds):
        """(frames, wall seconds, CPU seconds) of `processes` (1 or 2) running a slice of
        `seconds` at once: frames and CPU time summed, the longer wall time."""
        for connection in self.connections[:processes]:
            connection.send(seconds)
        slices = np.array([connection.recv() for connection in self.connections[:processes]])
        return np.array([slices[:, 0].sum(), slices[:, 1].max(), slices[:, 2].sum()])

    def close(self):
        for connection, worker in zip(self.connections, self.workers):
            connection.send(None)
            worker.join()


def machine_busy():
    """CPU seconds all processes have used since boot (Linux's /proc/stat), or None."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(x) for x in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # All but idle and iowait: user, nice, system, irq, softirq, steal.
    return (sum(ticks[:3]) + sum(ticks[5:8])) / os.sysconf("SC_CLK_TCK")


def with_others(run, seconds):
    """`run(seconds)`'s (frames, wall seconds, CPU seconds) and the cores other processes kept
    busy meanwhile (NaN where the machine does not tell)."""
    before = machine_busy()
    result = run(seconds)
    after = machine_busy()
    others = np.nan if before is None else max(0.0, after - before - result[2]) / result[1]
    return np.append(result, others)


def paired(one, two, pairs, seconds):
    """`pairs` ratios of `two`'s frames per second of wall time over `one`'s, each from a slice
    of each run back to back (which goes first takes turns), and the slices of each side as
    rows of (frames, wall seconds, CPU seconds, other processes' cores). `one()` and `two()`
    run a slice of `seconds`."""
    one(seconds / 4), two(seconds / 4)  # warm-up
    ones, twos = [], []
    for k in range(pairs):
        if k % 2:
            twos.append(with_others(two, seconds))
            ones.append(with_others(one, seconds))
        else:
            ones.append(with_others(one, seconds))
            twos.append(with_others(two, seconds))
    ones, twos = np.array(ones), np.array(twos)
    ratios = (twos[:, 0] / twos[:, 1]) / (ones[:, 0] / ones[:, 1])
    return ratios, ones, twos


def report_scaling(what, ratios, ones, twos, one, two):
    """Prints the median ratio with its interquartile range, and each side's frames per second,
    CPU time per frame and cores used (medians over the slices); then the cores other processes
    used, and the ratio over the pairs in which they used almost none (when the machine has
    several users or sessions, theirs take cores that the threads would have had)."""
    low, median, high = np.percentile(ratios, [25, 50, 75])
    print(
        f"{what}: {two} / {one} = {median:.2f} (median of {len(ratios)} pairs of slices;"
        f" interquartile {low:.2f}-{high:.2f})"
    )
    for side, slices in ((one, ones), (two, twos)):
        frames, wall, cpu, _ = slices.T
        print(
            f"    {side}: {np.median(frames / wall):8.0f} frames/s, {np.median(cpu / frames) * 1e6:6.1f} us"
            f" of CPU a frame, {np.median(cpu / wall):.2f} cores busy"
        )
    others = np.maximum(ones[:, 3], twos[:, 3])
    if not np.isnan(others).any():
        alone = ratios[others < QUIET]
        print(
            f"    other processes: {np.median(others):.2f} cores (median); {len(alone)} pairs with"
            f" under {QUIET} cores in both slices"
            + (f": {two} / {one} = {np.median(alone):.2f}" if len(alone) else "")
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rom", help="an iNES file (default: the built-in Quadfall)")
    parser.add_argument("--envs", type=int, default=8, help="consoles in the vector figures")
    parser.add_argument("--pairs", type=int, default=60, help="pairs of slices for the scaling")
    parser.add_argument("--slice", type=float, default=0.2, help="seconds of a slice")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    masks = rng.integers(0, 256, 4096)
    i = iter(range(1 << 62))

    def mask():
        return int(masks[next(i) % len(masks)])

    console = nestor.Console(args.rom)
    # What each figure measures: a step function (of one frame).
    figures = {
        "Console.step (RAM path, no picture)": lambda: console.step(mask()),
        "Console.step + frame() (pixels)": lambda: (console.step(mask()), console.frame()),
    }
    from nestor.envs import NesEnv, TetrisEnv

    env = NesEnv(args.rom, frame_skip=1, actions="all", obs_type="rgb")
    env.reset(seed=0)
    figures["NesEnv pixels, frame skip 1"] = lambda: env.step(mask())
    tetris = TetrisEnv(obs_type="ram")
    tetris.reset(seed=0)

    def tetris_step():
        if tetris.step(int(rng.integers(0, tetris.action_space.n)))[2]:
            tetris.reset()

    figures["TetrisEnv RAM dict, frame skip 1"] = tetris_step
    try:
        from nes_py import NESEnv
    except ImportError:
        print("nes-py: not installed, no comparison")
    else:
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".nes") as rom:
            rom.write(open(args.rom, "rb").read() if args.rom else nestor.quadfall_rom())
            rom.flush()
            nes_py = NESEnv(rom.name)
        nes_py.reset()
        figures["nes-py NESEnv pixels, frame skip 1"] = lambda: nes_py.step(mask())
    rounds = {what: [] for what in figures}
    for _ in range(args.rounds):
        for what, step in figures.items():
            rounds[what].append(rate(step, args.seconds))
    median = {what: np.median(rates, axis=0) for what, rates in rounds.items()}
    print(f"{'frames/s':>10} {'per CPU s':>10} {'cores':>6}  what")
    for what, (wall, cpu) in median.items():
        print(f"{wall:10.0f} {cpu:10.0f} {wall / cpu:6.2f}  {what}")
    if "nes-py NESEnv pixels, frame skip 1" in median:
        ours, theirs = median["NesEnv pixels, frame skip 1"], median["nes-py NESEnv pixels, frame skip 1"]
        print(f"NesEnv / nes-py NESEnv = {ours[0] / theirs[0]:.1f} (wall), {ours[1] / theirs[1]:.1f} (CPU)")

    print(f"From one core to two, {args.pairs} pairs of {args.slice} s slices, {args.envs} consoles a VecConsole:")
    for kind, pixels in (("RAM", False), ("pixels", True)):
        one, two = (vec_slices(args.envs, args.rom, threads, pixels, seed=0) for threads in (1, 2))
        result = paired(one, two, args.pairs, args.slice)
        report_scaling(f"VecConsole {kind}", *result, "1 thread", "2 threads")
    processes = TwoProcesses(args.envs, args.rom)
    result = paired(lambda s: processes.run(1, s), lambda s: processes.run(2, s), args.pairs, args.slice)
    processes.close()
    report_scaling("Independent processes, VecConsole 1 thread each, RAM", *result, "1 process", "2 processes")


if __name__ == "__main__":
    main()
