"""Frames per second of nestor's Python API (and of nes-py on the same ROM when installed).

    python -m nestor.bench [--seconds S] [--rounds R] [--rom ROM] [--envs N] [--pairs P] [--steps T]

Every figure runs one frame per step (a frame per console for the vector ones) with random
buttons. The single-console figures run for S seconds after a warm-up, in each of R rounds that
take turns (so that a busy spell of the machine hits all alike); the median round is printed:
frames per second of wall time, frames per second of the process's CPU time (all its threads:
what the machine's other jobs do not change) and the cores used (CPU time over wall time).

Then the scaling from one core to two, in P pairs of slices of T steps: a VecConsole of N
consoles on 1 thread and one on 2 threads (RAM, then pixels), and one process stepping a
1-thread VecConsole alone and then beside a second such process (what the machine itself gives,
with nothing shared). The two slices of a pair run the same frames (the same states and
buttons: a frame's cost depends on what the game is doing, the title screen costing less than
play), back to back, in turns first, so that the machine's changes of speed, which last longer
than a slice, touch both alike. The median of the pairs' ratios is printed with its 95%
confidence interval and interquartile range, and the CPU time a frame costs on each side."""

import argparse
import multiprocessing
import os
import time

import numpy as np

import nestor


# Cores other processes may use during a pair for it to count as run on an idle machine
# (/proc/stat counts in ticks of 10 ms: a pair of 0.3 s on 2 cores has 60).
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


class Stepper:
    """A VecConsole of `envs` consoles on `threads` threads that steps a given run of button
    masks (one frame a step) and times it: (frames, wall seconds, CPU seconds of this
    process)."""

    def __init__(self, envs, rom, threads, pixels):
        self.vec, self.pixels = nestor.VecConsole(envs, rom, threads=threads), pixels

    def run(self, masks):
        start, cpu = time.perf_counter(), time.process_time()
        for pads in masks:
            self.vec.step(pads, pixels=self.pixels)
        return np.array([len(masks) * len(self.vec), time.perf_counter() - start, time.process_time() - cpu])

    def states(self):
        return [self.vec.save_state(i) for i in range(len(self.vec))]

    def load(self, states):
        for i, state in enumerate(states):
            self.vec.load_state(i, state)


def masks_of(rng, steps, envs):
    return rng.integers(0, 256, (steps, envs)).tolist()


def same_frames(one, two, rng, steps):
    """`one` and `two` (Steppers of as many consoles) timed on the same frames: from the same
    states, with the same buttons, in turns which first. Returns a function of the pair's
    index that runs it: ((one's figures, two's figures), each as `Stepper.run`'s)."""
    envs = len(one.vec)

    def pair(k):
        masks, start = masks_of(rng, steps, envs), one.states()
        two.load(start)
        if k % 2:
            second = two.run(masks)
            return one.run(masks), second
        first = one.run(masks)
        return first, two.run(masks)

    return pair


def _vec_console_worker(envs, rom, seed, connection):
    """Steps a 1-thread VecConsole (RAM) for each request on `connection` (None ends): (steps,
    rewind), rewind meaning to start again from the states of the last request's start, so
    that the slice alone and the slice beside the other process run the same frames. Answers
    `Stepper.run`'s figures."""
    stepper, rng = Stepper(envs, rom, 1, False), np.random.default_rng(seed)
    states, masks = None, None
    while (request := connection.recv()) is not None:
        steps, rewind = request
        if rewind:
            stepper.load(states)
        else:
            states, masks = stepper.states(), masks_of(rng, steps, envs)
        connection.send(stepper.run(masks))


class TwoProcesses:
    """Two worker processes, each with a 1-thread VecConsole: a pair is the first process
    alone and both at once (which first in turns), the first running the same frames in
    both."""

    def __init__(self, envs, rom):
        context = multiprocessing.get_context("spawn")
        self.connections, self.workers = [], []
        for seed in range(2):
            ours, theirs = context.Pipe()
            worker = context.Process(target=_vec_console_worker, args=(envs, rom, seed, theirs), daemon=True)
            worker.start()
            self.connections.append(ours)
            self.workers.append(worker)

    def pair(self, k, steps):
        """Pair `k` of `steps` steps: (the first process alone, both at once: frames and CPU
        time summed, the longer wall time), each as `Stepper.run`'s figures."""
        first, second = self.connections

        def alone(rewind):
            first.send((steps, rewind))
            return first.recv()

        def both(rewind):
            first.send((steps, rewind))
            second.send((steps, False))
            slices = np.array([first.recv(), second.recv()])
            return np.array([slices[:, 0].sum(), slices[:, 1].max(), slices[:, 2].sum()])

        if k % 2:
            together = both(False)
            return alone(True), together
        return alone(False), both(True)

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


def with_others(pair):
    """`pair()`'s two sides' figures, each with the cores other processes kept busy while the
    pair ran (NaN where the machine does not tell)."""
    before = machine_busy()
    start = time.perf_counter()
    one, two = pair()
    wall, after = time.perf_counter() - start, machine_busy()
    others = np.nan if before is None else max(0.0, after - before - one[2] - two[2]) / wall
    return np.append(one, others), np.append(two, others)


def paired(pair, pairs):
    """`pairs` ratios of the second side's frames per second of wall time over the first's,
    and the slices of each side as rows of (frames, wall seconds, CPU seconds, other
    processes' cores). `pair(k)` runs pair k."""
    pair(0)  # warm-up
    sides = [with_others(lambda: pair(k)) for k in range(pairs)]
    ones, twos = (np.array(side) for side in zip(*sides))
    ratios = (twos[:, 0] / twos[:, 1]) / (ones[:, 0] / ones[:, 1])
    return ratios, ones, twos


def median_interval(values):
    """A 95% confidence interval of the median of `values`, from their order statistics (the
    count below the true median is binomial with p = 1/2, here by its normal approximation)."""
    ordered = np.sort(values)
    k = max(0, int((len(ordered) - 1.96 * np.sqrt(len(ordered))) / 2))
    return ordered[k], ordered[len(ordered) - 1 - k]


def report_scaling(what, ratios, ones, twos, one, two):
    """Prints the median ratio with its 95% interval and interquartile range, and each side's
    frames per second, CPU time per frame and cores used (medians over the slices); then the
    cores other processes used, and the ratio over the pairs in which they used almost none
    (when the machine has several users or sessions, theirs take cores that the threads would
    have had)."""
    low, median, high = np.percentile(ratios, [25, 50, 75])
    sure_low, sure_high = median_interval(ratios)
    print(
        f"{what}: {two} / {one} = {median:.2f} (median of {len(ratios)} pairs of slices, 95%"
        f" interval {sure_low:.2f}-{sure_high:.2f}; interquartile {low:.2f}-{high:.2f})"
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
            f" under {QUIET} cores"
            + (f": {two} / {one} = {np.median(alone):.2f}" if len(alone) else "")
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rom", help="an iNES file (default: the built-in Quadfall)")
    parser.add_argument("--envs", type=int, default=8, help="consoles in the vector figures")
    parser.add_argument("--pairs", type=int, default=150, help="pairs of slices for the scaling")
    parser.add_argument("--steps", type=int, default=100, help="steps of a slice of the scaling")
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

    print(f"From one core to two, {args.pairs} pairs of slices of {args.steps} steps, {args.envs} consoles a VecConsole:")
    rng = np.random.default_rng(1)
    for kind, pixels in (("RAM", False), ("pixels", True)):
        one, two = (Stepper(args.envs, args.rom, threads, pixels) for threads in (1, 2))
        result = paired(same_frames(one, two, rng, args.steps), args.pairs)
        report_scaling(f"VecConsole {kind}", *result, "1 thread", "2 threads")
    processes = TwoProcesses(args.envs, args.rom)
    result = paired(lambda k: processes.pair(k, args.steps), args.pairs)
    processes.close()
    report_scaling("Independent processes, VecConsole 1 thread each, RAM", *result, "1 process", "2 processes")

if __name__ == "__main__":
    main()
