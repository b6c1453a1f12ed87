"""The native NES Tetris AI of nestor, to compare a learned agent with."""

from ._nestor import PiecePlayer, best_placement, placements

__all__ = ["PiecePlayer", "best_placement", "placements"]
