"""Steps per second of nestor's Python API (and of nes-py on the same ROM when installed).

    python -m nestor.bench [--seconds S] [--rom ROM] [--envs N]

Every figure is one frame per step, random actions, measured for S seconds after a warm-up."""

import argparse
import time

import numpy as np

import nestor


def rate(step, seconds):
    """Calls of `step` per second over `seconds` (after 30 calls of warm-up)."""
    for _ in range(30):
        step()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            step()
        n += 10
    return n / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rom", help="an iNES file (default: the built-in Quadfall)")
    parser.add_argument("--envs", type=int, default=8, help="consoles in the vector figures")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    masks = rng.integers(0, 256, 4096)
    i = iter(range(1 << 62))

    def mask():
        return int(masks[next(i) % len(masks)])

    console = nestor.Console(args.rom)
    figures = {
        "Console.step (RAM path, no picture)": rate(lambda: console.step(mask()), args.seconds),
        "Console.step + frame() (pixels)": rate(lambda: (console.step(mask()), console.frame()), args.seconds),
    }
    from nestor.envs import NesEnv, TetrisEnv

    env = NesEnv(args.rom, frame_skip=1, actions="all", obs_type="rgb")
    env.reset(seed=0)
    figures["NesEnv pixels, frame skip 1"] = rate(lambda: env.step(mask()), args.seconds)
    tetris = TetrisEnv(obs_type="ram")
    tetris.reset(seed=0)

    def tetris_step():
        if tetris.step(int(rng.integers(0, tetris.action_space.n)))[2]:
            tetris.reset()

    figures["TetrisEnv RAM dict, frame skip 1"] = rate(tetris_step, args.seconds)
    for pixels in (False, True):
        for threads in (1, 2):
            vec = nestor.VecConsole(args.envs, args.rom, threads=threads)
            batch = [0] * args.envs
            what = f"VecConsole x{args.envs}, {threads} thread(s), {'pixels' if pixels else 'RAM'} (frames/s)"
            figures[what] = args.envs * rate(lambda: vec.step(batch, pixels=pixels), args.seconds)
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
        figures["nes-py NESEnv pixels, frame skip 1"] = rate(lambda: nes_py.step(mask()), args.seconds)
    for what, steps in figures.items():
        print(f"{steps:10.0f}  {what}")


if __name__ == "__main__":
    main()
