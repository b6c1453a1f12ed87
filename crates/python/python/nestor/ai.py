"""The native NES Tetris AI of nestor, to compare a learned agent with."""

from ._nestor import best_placement, placements

__all__ = ["best_placement", "placements"]
