"""nestor: a cycle-accurate NES emulator for Python.

`Console` is one NES (Quadfall, the project's own NES Tetris-compatible game, when no ROM is
given); `VecConsole` steps many at once on threads. Gymnasium environments are in
`nestor.envs` (registered as "nestor/Nes-v0", "nestor/Tetris-v0" and
"nestor/TetrisPlacements-v0" on import of nestor); the native Tetris AI in `nestor.ai`.
"""

from ._nestor import Console, Ram, VecConsole, quadfall_rom

# Button bits of a controller mask, in the controller's own order.
A = 0x01
B = 0x02
SELECT = 0x04
START = 0x08
UP = 0x10
DOWN = 0x20
LEFT = 0x40
RIGHT = 0x80

__all__ = ["Console", "Ram", "VecConsole", "quadfall_rom", "A", "B", "SELECT", "START", "UP", "DOWN", "LEFT", "RIGHT"]

# The environments register themselves with Gymnasium when it is installed.
try:
    import gymnasium  # noqa: F401
except ImportError:
    pass
else:
    from . import envs  # noqa: F401
