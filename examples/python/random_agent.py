"""A random agent plays Quadfall through Gymnasium until it tops out, then prints its result.

    pip install crates/python gymnasium
    python examples/python/random_agent.py [--seed N] [--level L]
"""

import argparse

import gymnasium as gym

import nestor  # noqa: F401  (registers the environments)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", type=int, default=0)
    args = parser.parse_args()
    env = gym.make("nestor/Tetris-v0", level=args.level)
    env.action_space.seed(args.seed)
    obs, info = env.reset(seed=args.seed)
    total, steps, done = 0.0, 0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        total += reward
        steps += 1
        done = terminated or truncated
    print(f"{steps} steps ({info['frame']} frames): score {info['score']}, lines {info['lines']}, reward {total:.0f}")


if __name__ == "__main__":
    main()
