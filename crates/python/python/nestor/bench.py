"""Frames per second of nestor's Python API (and of nes-py on the same ROM when installed).

    python -m nestor.bench [--seconds S] [--rounds R] [--rom ROM] [--envs N]

Every figure runs one frame per step (a frame per console for the vector ones) with random
buttons, for S seconds after a warm-up, in each of R rounds that take turns (so that a busy
spell of the machine hits all alike); the median round is printed: frames per second of wall
time, frames per second of the process's CPU time (all its threads: what the machine's other
jobs do not change) and the cores used (CPU time over wall time). Then the ratios: 2 threads
over 1 for VecConsole (the median of the rounds' own ratios), nestor over nes-py."""

import argparse
import multiprocessing
import time

import numpy as np

import nestor


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


def _lone_vec_console(envs, rom, seconds, start, out):
    """One process's frames per second of a 1-thread VecConsole, begun when all are ready."""
    vec = nestor.VecConsole(envs, rom, threads=1)
    masks = np.random.default_rng(1).integers(0, 256, envs).tolist()
    start.wait()
    out.put(envs * rate(lambda: vec.step(masks), seconds))


def two_processes(envs, rom, seconds):
    """Frames per second of two independent processes, each stepping a 1-thread VecConsole at
    the same time: how far this machine itself scales from one busy core to two, with nothing
    shared between the two."""
    context = multiprocessing.get_context("spawn")
    start, out = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_lone_vec_console, args=(envs, rom, seconds, start, out)) for _ in range(2)]
    for worker in workers:
        worker.start()
    (wall1, cpu1), (wall2, cpu2) = out.get(), out.get()
    for worker in workers:
        worker.join()
    # Frames over both processes' CPU time (each ran the same wall time).
    return np.array([wall1 + wall2, (wall1 + wall2) / (wall1 / cpu1 + wall2 / cpu2)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rom", help="an iNES file (default: the built-in Quadfall)")
    parser.add_argument("--envs", type=int, default=8, help="consoles in the vector figures")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    masks = rng.integers(0, 256, 4096)
    i = iter(range(1 << 62))

    def mask():
        return int(masks[next(i) % len(masks)])

    console = nestor.Console(args.rom)
    # What each figure measures: a step function, and frames per call.
    figures = {
        "Console.step (RAM path, no picture)": (lambda: console.step(mask()), 1),
        "Console.step + frame() (pixels)": (lambda: (console.step(mask()), console.frame()), 1),
    }
    from nestor.envs import NesEnv, TetrisEnv

    env = NesEnv(args.rom, frame_skip=1, actions="all", obs_type="rgb")
    env.reset(seed=0)
    figures["NesEnv pixels, frame skip 1"] = (lambda: env.step(mask()), 1)
    tetris = TetrisEnv(obs_type="ram")
    tetris.reset(seed=0)

    def tetris_step():
        if tetris.step(int(rng.integers(0, tetris.action_space.n)))[2]:
            tetris.reset()

    figures["TetrisEnv RAM dict, frame skip 1"] = (tetris_step, 1)
    for pixels in (False, True):
        for threads in (1, 2):
            vec = nestor.VecConsole(args.envs, args.rom, threads=threads)
            batch = range(args.envs)
            what = f"VecConsole x{args.envs}, {threads} thread(s), {'pixels' if pixels else 'RAM'}"
            figures[what] = (lambda vec=vec, pixels=pixels: vec.step([mask() for _ in batch], pixels=pixels), args.envs)
    figures["2 processes, VecConsole 1 thread each, RAM"] = (lambda: None, None)
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
        figures["nes-py NESEnv pixels, frame skip 1"] = (lambda: nes_py.step(mask()), 1)
    rounds = {what: [] for what in figures}
    for _ in range(args.rounds):
        for what, (step, frames) in figures.items():
            if frames is None:
                rounds[what].append(two_processes(args.envs, args.rom, args.seconds))
            else:
                rounds[what].append(frames * rate(step, args.seconds))
    median = {what: np.median(rates, axis=0) for what, rates in rounds.items()}
    print(f"{'frames/s':>10} {'per CPU s':>10} {'cores':>6}  what")
    for what, (wall, cpu) in median.items():
        print(f"{wall:10.0f} {cpu:10.0f} {wall / cpu:6.2f}  {what}")
    one_ram = np.array(rounds[f"VecConsole x{args.envs}, 1 thread(s), RAM"])[:, 0]
    apart = np.array(rounds["2 processes, VecConsole 1 thread each, RAM"])[:, 0] / one_ram
    print(f"Two independent processes / one (this machine's own scaling): {np.median(apart):.2f}")
    for kind in ("RAM", "pixels"):
        # Paired by round: the two runs of a round are back to back, so a spell in which the
        # machine runs a lone busy core faster touches both or neither.
        one, two = (np.array(rounds[f"VecConsole x{args.envs}, {t} thread(s), {kind}"])[:, 0] for t in (1, 2))
        ratios = two / one
        print(
            f"VecConsole {kind}: 2 threads / 1 thread = {np.median(ratios):.2f} (wall, median of"
            f" {len(ratios)} rounds; {ratios.min():.2f}-{ratios.max():.2f})"
        )
    if "nes-py NESEnv pixels, frame skip 1" in median:
        ours, theirs = median["NesEnv pixels, frame skip 1"], median["nes-py NESEnv pixels, frame skip 1"]
        print(f"NesEnv / nes-py NESEnv = {ours[0] / theirs[0]:.1f} (wall), {ours[1] / theirs[1]:.1f} (CPU)")


if __name__ == "__main__":
    main()
