"""nestor's native AI plays Quadfall through the Gymnasium environment: for each new piece,
`nestor.ai.best_placement` picks the lock position and the script writes it into the game's RAM
(the AI's "teleport" mode), then gravity locks it.

    pip install crates/python gymnasium
    python examples/python/native_ai.py [--pieces N] [--level L]
"""

import argparse

import gymnasium as gym

import nestor.ai

SPAWN_COUNT, PLAY_STATE = 0x1A, 0x48


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pieces", type=int, default=200)
    parser.add_argument("--level", type=int, default=18)
    args = parser.parse_args()
    env = gym.make("nestor/Tetris-v0", level=args.level).unwrapped
    obs, info = env.reset(seed=0)
    ram = env.console.ram
    pieces, last_spawn, terminated = 0, None, False
    while pieces < args.pieces and not terminated:
        if ram[PLAY_STATE] == 1 and ram[SPAWN_COUNT] != last_spawn:
            last_spawn = ram[SPAWN_COUNT]
            x, y, piece = obs["piece"]
            target = nestor.ai.best_placement(obs["board"], int(piece), obs["next"], obs["level"])
            if target is None:
                break
            # The game keeps a copy of the piece at $60-$62: write both.
            for base in (0x40, 0x60):
                ram[base:base + 3] = [target[0], target[1] & 0xFF, target[2]]
            pieces += 1
        obs, reward, terminated, truncated, info = env.step(0)
    print(f"{pieces} pieces: score {info['score']}, lines {info['lines']}, topped out: {terminated}")


if __name__ == "__main__":
    main()
