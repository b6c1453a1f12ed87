import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import nestor
import nestor.ai
from nestor.envs import MAX_PLACEMENTS, NesEnv, NesVecEnv, TetrisEnv, TetrisPlacementsEnv, TETRIS_ACTIONS


def test_tetris_is_registered_and_starts_a_game():
    env = gym.make("nestor/Tetris-v0")
    obs, info = env.reset(seed=1)
    assert obs["board"].shape == (20, 10) and obs["board"].sum() == 0, "empty playfield"
    x, y, piece = obs["piece"]
    assert (x, y) == (5, 0) and piece < 0x13, "a piece at the spawn point"
    assert obs["level"] == 0 and obs["lines"] == 0 and obs["score"] == 0
    env.close()


def test_check_env_passes_on_ram_and_pixel_observations():
    check_env(TetrisEnv().unwrapped, skip_render_check=True)
    check_env(gym.make("nestor/Tetris-v0", obs_type="rgb", render_mode="rgb_array").unwrapped)
    check_env(NesEnv(frame_skip=2))
    check_env(NesEnv(obs_type="ram"))


def test_seeds_choose_the_pieces_reproducibly():
    env = TetrisEnv()
    starts = {}
    for seed in range(6):
        obs, _ = env.reset(seed=seed)
        starts[seed] = (int(obs["piece"][2]), obs["next"], bytes(env.console.ram))
    assert env.reset(seed=3)[0]["next"] == starts[3][1]
    assert bytes(env.console.ram) == starts[3][2]
    assert len({ram for _, _, ram in starts.values()}) > 1, "different seeds, different games"


def test_dropping_pieces_tops_out_with_a_score_reward():
    env = TetrisEnv(level=18, actions=TETRIS_ACTIONS)
    obs, _ = env.reset(seed=0)
    assert obs["level"] == 18
    down = TETRIS_ACTIONS.index(nestor.DOWN)
    total, steps, terminated = 0.0, 0, False
    # Soft drop every piece straight down; Down must be released for the next piece to drop.
    while not terminated and steps < 5000:
        obs, reward, terminated, truncated, info = env.step(down if steps % 40 else 0)
        total += reward
        steps += 1
    assert terminated, "stacking in the middle tops out"
    assert total == info["score"] > 0, "soft-drop points are the rewards"
    assert obs["board"].sum() > 0


def test_bad_env_arguments_raise():
    with pytest.raises(ValueError):
        TetrisEnv(level=20)
    with pytest.raises(ValueError):
        NesEnv(actions=[0, 256])
    with pytest.raises(ValueError):
        NesEnv(obs_type="depth")
    env = NesEnv()
    env.reset()
    with pytest.raises(ValueError):
        env.step(len(env.actions))


def test_all_masks_action_set_is_the_mask_itself():
    env = NesEnv(actions="all", obs_type="ram")
    assert env.action_space.n == 256
    env.reset()
    env.step(nestor.START)
    assert env.console.frame_count == 1
    assert isinstance(env.observation_space.sample(), np.ndarray)


def test_native_ai_places_pieces_on_the_floor_and_refuses_bad_input():
    empty = np.zeros((20, 10), np.uint8)
    x, y, piece = nestor.ai.best_placement(empty, 0x12)  # I, horizontal
    assert piece in (0x11, 0x12) and (piece != 0x12 or y == 19)
    full = np.ones((20, 10), np.uint8)
    assert nestor.ai.best_placement(full, 0x02) is None, "no place: game over"
    with pytest.raises(ValueError):
        nestor.ai.best_placement(empty[:19], 0x02)
    with pytest.raises(ValueError):
        nestor.ai.best_placement(empty, 19)
    with pytest.raises(ValueError):
        nestor.ai.best_placement(empty, 2, profile="random")
    with pytest.raises(ValueError):
        nestor.ai.best_placement(empty, 2, next=19)


def test_placements_list_every_lock_position():
    empty = np.zeros((20, 10), np.uint8)
    # O ($0A) on an empty board: one orientation, on the floor at each of 9 columns.
    assert sorted(nestor.ai.placements(empty, 0x0A)) == [(x, 18, 0x0A) for x in range(1, 10)]
    # I: 7 horizontal positions on the floor and 10 vertical ones.
    i_locks = nestor.ai.placements(empty, 0x12)
    assert len(i_locks) == 17 and {p for _, _, p in i_locks} == {0x11, 0x12}
    board = np.zeros((20, 10), np.uint8)
    board[10:, 2:] = 1
    locks = nestor.ai.placements(board, 0x02)
    assert nestor.ai.best_placement(board, 0x02) in locks
    assert nestor.ai.placements(np.ones((20, 10), np.uint8), 0x02) == [], "cannot spawn"
    with pytest.raises(ValueError):
        nestor.ai.placements(empty, 19)


def test_native_ai_clears_lines_in_the_environment():
    """The AI's placements written into RAM (teleport mode) clear lines and score."""
    env = TetrisEnv(level=18)
    obs, info = env.reset(seed=0)
    ram, last_spawn, pieces, total = env.console.ram, None, 0, 0.0
    while pieces < 100:
        if ram[0x48] == 1 and ram[0x1A] != last_spawn:
            last_spawn = ram[0x1A]
            target = nestor.ai.best_placement(obs["board"], int(obs["piece"][2]), obs["next"], 18)
            assert target is not None, "the AI tops out in 100 pieces"
            for base in (0x40, 0x60):
                ram[base:base + 3] = [target[0], target[1] & 0xFF, target[2]]
            pieces += 1
        obs, reward, terminated, _, info = env.step(0)
        total += reward
        assert not terminated
    assert info["lines"] >= 20, f"100 pieces (400 cells) should clear lines: {info}"
    assert total == info["score"] > 0


def test_placements_env_passes_check_env_and_locks_pieces_where_chosen():
    check_env(gym.make("nestor/TetrisPlacements-v0").unwrapped, skip_render_check=True)
    env = TetrisPlacementsEnv(level=18)
    assert env.action_space == gym.spaces.Discrete(MAX_PLACEMENTS)
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    pieces, terminated = 0, False
    while not terminated:
        targets, mask = info["placements"], info["action_mask"]
        assert len(targets) > 0 and mask.dtype == np.int8 and mask.sum() == len(targets)
        assert np.array_equal(mask, env.action_masks()) and mask[:len(targets)].all()
        assert targets == sorted(targets, key=lambda t: (t[2], t[0], t[1]))
        x, y, piece = obs["piece"]
        assert all(t in nestor.ai.placements(obs["board"], piece) for t in targets)
        action = int(rng.integers(len(targets)))
        obs, reward, terminated, truncated, info = env.step(action)
        assert info["placed"] == targets[action], "the piece locks where chosen"
        pieces += 1
    assert pieces > 10 and info["placements"] == [] and not info["action_mask"].any()


def test_placements_env_lets_the_piece_fall_on_an_index_past_the_list():
    env = TetrisPlacementsEnv(level=18)
    obs, info = env.reset(seed=0)
    spawn = int(obs["piece"][2])
    obs, reward, terminated, truncated, info = env.step(len(info["placements"]))
    assert info["placed"][0] == 5 and info["placed"][2] == spawn, "straight down, unrotated"
    with pytest.raises(ValueError):
        env.step(MAX_PLACEMENTS)


def test_native_ai_choices_as_placement_actions_clear_lines():
    env = gym.make("nestor/TetrisPlacements-v0", level=18)
    obs, info = env.reset(seed=0)
    total = 0.0
    for _ in range(100):
        action = env.unwrapped.ai_action()
        assert info["action_mask"][action] == 1
        target = info["placements"][action]
        obs, reward, terminated, truncated, info = env.step(action)
        assert info["placed"] == target and not terminated
        total += reward
    assert info["lines"] >= 20, f"100 pieces (400 cells) should clear lines: {info}"
    assert total == info["score"] > 0


def test_piece_player_refuses_a_console_moved_since_its_search():
    env = TetrisEnv()
    env.reset(seed=0)
    player = nestor.ai.PiecePlayer()
    targets = player.search(env.console)
    with pytest.raises(IndexError):
        player.play(env.console, len(targets))
    env.console.step(0)
    with pytest.raises(ValueError, match="call search first"):
        player.play(env.console, 0)
    with pytest.raises(ValueError):
        nestor.ai.PiecePlayer(tap_hz=25)
    assert nestor.ai.PiecePlayer().search(nestor.Console()) == [], "no game, no piece"


def test_vector_env_matches_single_envs():
    vec = NesVecEnv(3, frame_skip=2, obs_type="rgb", threads=2)
    singles = [NesEnv(frame_skip=2, obs_type="rgb") for _ in range(3)]
    obs, _ = vec.reset(seed=0)
    assert obs.shape == (3, 240, 256, 3)
    for env in singles:
        env.reset(seed=0)
    rng = np.random.default_rng(1)
    for _ in range(100):
        actions = rng.integers(0, len(vec.actions), 3)
        obs, rewards, terminated, truncated, _ = vec.step(actions)
        single = [env.step(int(a))[0] for env, a in zip(singles, actions)]
    assert vec.observation_space.contains(obs)
    assert all(np.array_equal(o, s) for o, s in zip(obs, single))
    assert rewards.shape == terminated.shape == truncated.shape == (3,)
    with pytest.raises(ValueError):
        vec.step([0, 0])
    ram_vec = NesVecEnv(2, obs_type="ram")
    assert ram_vec.reset()[0].shape == (2, 2048)
