"""Boggle solver: boards, dice, word lists and scoring, in plain Python (no Django).

The board walk has an optional compiled core (``solver.native``, C through ctypes, built by
``python -m solver.native build``); without it the same walk runs in pure Python.

>>> from solver import dictionaries, parse_board, solve
>>> solution = solve(parse_board("aeol iejm pdls orkf"), dictionaries.load("english"))
"""

from solver.board import Board, from_faces, neighbour_table, parse_board
from solver.compiler import CompileReport, compile_word_list, read_wordlist, read_wordlist_bytes
from solver.dice import DICE_SETS, DiceSet, get_dice_set, roll
from solver.errors import BoardError, DiceError, SolverError, WordListError
from solver.scoring import default_min_length, points_table, word_points
from solver.solve import FoundWord, Solution, find_paths, solve
from solver.wordlist import WordList, load_word_list, write_word_list
from solver.wordrules import DropReason, WordRules, fold_accents, normalise_word

__all__ = [
    "DICE_SETS",
    "Board",
    "BoardError",
    "CompileReport",
    "DiceError",
    "DiceSet",
    "DropReason",
    "FoundWord",
    "Solution",
    "SolverError",
    "WordList",
    "WordListError",
    "WordRules",
    "compile_word_list",
    "default_min_length",
    "find_paths",
    "fold_accents",
    "from_faces",
    "get_dice_set",
    "load_word_list",
    "neighbour_table",
    "normalise_word",
    "parse_board",
    "points_table",
    "read_wordlist",
    "read_wordlist_bytes",
    "roll",
    "solve",
    "word_points",
    "write_word_list",
]
