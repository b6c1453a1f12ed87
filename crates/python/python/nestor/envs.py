"""Gymnasium environments on nestor: `NesEnv` for any ROM, `TetrisEnv` for Quadfall (or a
NES Tetris ROM of the user's: same RAM map), `TetrisPlacementsEnv` where an action places a
whole piece. Importing this module registers "nestor/Nes-v0", "nestor/Tetris-v0" and
"nestor/TetrisPlacements-v0"."""

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from . import A, B, DOWN, LEFT, RIGHT, START, UP, SELECT, Console, VecConsole
from .ai import PiecePlayer

# Single buttons and the pairs a platformer needs.
SIMPLE_ACTIONS = [0, A, B, SELECT, START, UP, DOWN, LEFT, RIGHT, RIGHT | A, RIGHT | B, LEFT | A, LEFT | B]
# Everything a Tetris player does in one frame: shift, rotate (A clockwise, B counter), soft drop.
TETRIS_ACTIONS = [0, LEFT, RIGHT, DOWN, A, B, LEFT | A, LEFT | B, RIGHT | A, RIGHT | B]


def _masks(actions):
    """The action list as controller masks; "all" is every mask 0-255 (action = mask)."""
    masks = list(range(256)) if actions == "all" else [int(a) for a in actions]
    if not masks or any(not 0 <= m <= 255 for m in masks):
        raise ValueError("actions must be a non-empty list of button masks 0-255, or \"all\"")
    return masks


class NesEnv(gym.Env):
    """Any ROM; each step holds one action's buttons for `frame_skip` frames. Observations are
    the picture ("rgb", 240x256x3) or the 2 KiB of RAM ("ram"). The reward is 0 and episodes do
    not end by themselves: subclass and override `_reward`/`_terminated`, or wrap with a
    TimeLimit (gymnasium.make does, with max_episode_steps)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 60}

    def __init__(self, rom=None, frame_skip=1, actions=SIMPLE_ACTIONS, obs_type="rgb", render_mode=None):
        if frame_skip < 1:
            raise ValueError("frame_skip must be at least 1")
        if obs_type not in ("rgb", "ram"):
            raise ValueError('obs_type must be "rgb" or "ram"')
        if render_mode not in (None, "rgb_array"):
            raise ValueError('render_mode must be None or "rgb_array"')
        self.console = Console(rom)
        self.frame_skip = frame_skip
        self.actions = _masks(actions)
        self.obs_type = obs_type
        self.render_mode = render_mode
        self.action_space = spaces.Discrete(len(self.actions))
        self.observation_space = self._observation_space()
        self._power_on = self.console.save_state()

    def _observation_space(self):
        if self.obs_type == "rgb":
            return spaces.Box(0, 255, (240, 256, 3), np.uint8)
        return spaces.Box(0, 255, (2048,), np.uint8)

    def _observation(self):
        if self.obs_type == "rgb":
            return self.console.frame()
        return np.asarray(self.console.ram)

    def _start(self):
        """Brings a fresh console to where episodes begin (power-on here)."""
        self.console.load_state(self._power_on)

    def _reward(self):
        return 0.0

    def _terminated(self):
        return False

    def _info(self):
        return {"frame": self.console.frame_count}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._start()
        return self._observation(), self._info()

    def step(self, action):
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in {self.action_space}")
        self._act(int(action))
        return self._observation(), float(self._reward()), bool(self._terminated()), False, self._info()

    def _act(self, action):
        """Runs the machine for one action."""
        self.console.step(self.actions[action], frames=self.frame_skip)

    def render(self):
        if self.render_mode == "rgb_array":
            return self.console.frame()
        return None


# The game's RAM (see docs: NES Tetris RAM map).
PIECE_X, PIECE_Y, PIECE_ID = 0x40, 0x41, 0x42
LEVEL, PLAY_STATE, LINES, SCORE = 0x44, 0x48, 0x50, 0x53
NEXT_PIECE, GAME_MODE, PLAYFIELD, EMPTY = 0xBF, 0xC0, 0x400, 0xEF
MODE_TITLE, MODE_LEVEL_MENU, MODE_PLAY, CURTAIN = 1, 3, 4, 0x0A


def _bcd(byte):
    return (byte >> 4) * 10 + (byte & 15)


class TetrisEnv(NesEnv):
    """An A-type game of Quadfall (or of `rom`, a NES Tetris ROM) from its first piece at
    `level`. Observations: the game's RAM as a dict (obs_type "ram": board 20x10 of 0/1,
    piece [x, y, orientation], next, level, lines, score) or the picture ("rgb"). Actions are
    controller masks (TETRIS_ACTIONS, or "all"); the reward is the score gained ("score") or
    lines cleared ("lines") in the step; an episode ends at top-out. Reset waits a random
    number of frames (from the seed) at the level menu, so seeds give different pieces."""

    def __init__(self, rom=None, level=0, frame_skip=1, actions=TETRIS_ACTIONS, obs_type="ram",
                 reward="score", render_mode=None):
        if not 0 <= level <= 19:
            raise ValueError("level must be 0-19")
        if reward not in ("score", "lines"):
            raise ValueError('reward must be "score" or "lines"')
        self.level = level
        self.reward_kind = reward
        super().__init__(rom, frame_skip, actions, obs_type, render_mode)
        self._level_menu = self._reach_level_menu()
        self._last = 0

    def _observation_space(self):
        if self.obs_type == "rgb":
            return super()._observation_space()
        return spaces.Dict({
            "board": spaces.Box(0, 1, (20, 10), np.uint8),
            "piece": spaces.Box(np.array([0, -128, 0]), np.array([255, 127, 255]), (3,), np.int16),
            "next": spaces.Discrete(256),
            "level": spaces.Discrete(256),
            "lines": spaces.Box(0, 25599, (), np.int32),
            "score": spaces.Box(0, 999999, (), np.int32),
        })

    def _tap(self, mask):
        self.console.step(mask)
        self.console.step(0)

    def _until(self, done, frames, what):
        for _ in range(frames):
            if done():
                return
            self.console.step(0)
        if not done():
            raise RuntimeError(f"the ROM never reached {what}: is it NES Tetris-compatible?")

    def _reach_level_menu(self):
        """Power-on, past the legal screen and the menus, with the cursor on the level."""
        c = self.console
        for _ in range(1000):
            if c.read(GAME_MODE) == MODE_LEVEL_MENU:
                break
            self._tap(START)
        self._until(lambda: c.read(GAME_MODE) == MODE_LEVEL_MENU, 1, "the level menu")
        # The menu takes input from its third frame on.
        c.step(0)
        c.step(0)
        digit = self.level % 10
        if digit >= 5:
            self._tap(DOWN)
        for _ in range(digit % 5):
            self._tap(RIGHT)
        return c.save_state()

    def _start(self):
        c = self.console
        c.load_state(self._level_menu)
        for _ in range(int(self.np_random.integers(0, 64))):
            c.step(0)
        if self.level >= 10:
            c.step(A)
            c.step(A | START)
        else:
            c.step(START)
        self._until(lambda: c.read(GAME_MODE) == MODE_PLAY and c.read(PLAY_STATE) == 1, 20, "a game")
        self._last = self._progress()

    def lines(self):
        return self.console.read(LINES + 1) * 100 + _bcd(self.console.read(LINES))

    def score(self):
        r = self.console.read
        return _bcd(r(SCORE + 2)) * 10000 + _bcd(r(SCORE + 1)) * 100 + _bcd(r(SCORE))

    def _progress(self):
        return self.score() if self.reward_kind == "score" else self.lines()

    def _observation(self):
        if self.obs_type == "rgb":
            return self.console.frame()
        ram = self.console.ram
        board = np.frombuffer(ram[PLAYFIELD:PLAYFIELD + 200], np.uint8).reshape(20, 10)
        x, y, piece = ram[PIECE_X:PIECE_ID + 1]
        return {
            "board": (board != EMPTY).astype(np.uint8),
            "piece": np.array([x, y - 256 if y >= 128 else y, piece], np.int16),
            "next": int(ram[NEXT_PIECE]),
            "level": int(ram[LEVEL]),
            "lines": np.array(self.lines(), np.int32),
            "score": np.array(self.score(), np.int32),
        }

    def _reward(self):
        now = self._progress()
        gained, self._last = now - self._last, now
        return gained

    def _terminated(self):
        return self.console.read(PLAY_STATE) == CURTAIN

    def _info(self):
        return {"frame": self.console.frame_count, "lines": self.lines(), "score": self.score()}


# A piece's lock positions never outnumber its 4 orientations x 10 columns x 20 rows.
MAX_PLACEMENTS = 4 * 10 * 20


class TetrisPlacementsEnv(TetrisEnv):
    """TetrisEnv where a step plays a whole piece. `info["placements"]` lists where the piece in
    play can lock, (x, y, orientation ID) sorted, as the native AI's frame-exact controller
    search finds them under gravity with at most `tap_hz` presses a second (30, 20, 15, 12 or
    10); the action is an index into that list, and the step presses the planned buttons frame
    by frame until the piece locks there, then runs until the next piece is in play. The action
    space is Discrete(MAX_PLACEMENTS), `info["action_mask"]` (int8) marks the list's indices;
    an index past the list lets the piece fall with nothing pressed. Observations as TetrisEnv's;
    the reward is the score (or lines) the piece gained; `info["placed"]` is where it locked."""

    def __init__(self, rom=None, level=0, tap_hz=30, obs_type="ram", reward="score", render_mode=None):
        self.player = PiecePlayer(tap_hz)
        super().__init__(rom, level, 1, TETRIS_ACTIONS, obs_type, reward, render_mode)
        self.action_space = spaces.Discrete(MAX_PLACEMENTS)
        self._targets, self._placed = [], None

    def _start(self):
        super()._start()
        self._targets, self._placed = self.player.search(self.console), None

    def _act(self, action):
        if self._targets:
            index = action if action < len(self._targets) else None
            self._placed = self.player.play(self.console, index)
            self._targets = self.player.search(self.console)

    def action_masks(self):
        """The valid actions (as sb3-contrib's MaskablePPO asks for them)."""
        mask = np.zeros(MAX_PLACEMENTS, np.int8)
        mask[:len(self._targets)] = 1
        return mask

    def ai_action(self):
        """The native AI's choice for the piece in play (its planner, with the preview piece),
        or None when no piece is in play."""
        return self.player.best(self.console)

    def _info(self):
        info = super()._info()
        info.update(placements=list(self._targets), action_mask=self.action_masks(), placed=self._placed)
        return info


class NesVecEnv(gym.vector.VectorEnv):
    """`num_envs` NesEnvs (same ROM, frame skip, actions and observation type) stepped
    together by `nestor.VecConsole` on `threads` threads with the GIL released; observations,
    rewards (0) and flags come as batched arrays. Episodes never end by themselves."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs, rom=None, frame_skip=1, actions=SIMPLE_ACTIONS, obs_type="rgb", threads=None):
        single = NesEnv(rom, frame_skip, actions, obs_type)
        self.consoles = VecConsole(num_envs, rom, threads)
        self.num_envs = num_envs
        self.frame_skip = frame_skip
        self.actions = np.array(single.actions)
        self.obs_type = obs_type
        self.single_observation_space = single.observation_space
        self.single_action_space = single.action_space
        self.observation_space = gym.vector.utils.batch_space(single.observation_space, num_envs)
        self.action_space = gym.vector.utils.batch_space(single.action_space, num_envs)
        self._power_on = single.console.save_state()

    def _run(self, masks, frames):
        ram, pictures = self.consoles.step(masks, frames=frames, pixels=self.obs_type == "rgb")
        return pictures if self.obs_type == "rgb" else ram

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        for i in range(self.num_envs):
            self.consoles.load_state(i, self._power_on)
        return self._run([0] * self.num_envs, 0), {}

    def step(self, actions):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not self.action_space.contains(actions.astype(np.int64)):
            raise ValueError(f"actions must be {self.num_envs} indices into the action set")
        obs = self._run(self.actions[actions].tolist(), self.frame_skip)
        zeros = np.zeros(self.num_envs, bool)
        return obs, np.zeros(self.num_envs), zeros, zeros.copy(), {}


gym.register("nestor/Nes-v0", entry_point=NesEnv)
gym.register("nestor/Tetris-v0", entry_point=TetrisEnv)
gym.register("nestor/TetrisPlacements-v0", entry_point=TetrisPlacementsEnv)
