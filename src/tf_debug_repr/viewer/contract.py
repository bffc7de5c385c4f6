"""The viewer contract (``contract.json`` beside this module), as Python reads it.

One file holds what the payload builder, the notebook pictures, the VS Code extension and
the viewer page must agree on: colour maps, mask codes, payload fields, message names and
the class names View Tensor is offered on. The extension's copies are generated from it
(``vscode-ext/scripts/contract.js``) and tests check them, so a change made here reaches
both sides or fails a test. Reading it imports neither numpy nor TensorFlow.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

PATH = Path(__file__).with_name("contract.json")

RGB = tuple[int, int, int]


@cache
def contract() -> dict[str, Any]:
    """The whole contract, parsed once."""
    return json.loads(PATH.read_text(encoding="utf-8"))


def _rgb(hex_colour: str) -> RGB:
    n = int(hex_colour.lstrip("#"), 16)
    return ((n >> 16) & 255, (n >> 8) & 255, n & 255)


def colour_stops(name: str) -> list[RGB]:
    """The anchor colours of a map ("viridis", "diverging"), evenly spaced over [0, 1]."""
    return [_rgb(c) for c in contract()["colour_maps"][name]]


def special_colour(name: str) -> RGB:
    """The colour of NaN ("nan"), +Inf ("posinf") or -Inf ("neginf") cells."""
    r, g, b = contract()["colour_maps"]["special"][name]
    return (r, g, b)


def mask_code(name: str) -> int:
    """The payload mask's code for "finite", "nan", "posinf" or "neginf"."""
    return int(contract()["mask"][name])


def fields(typename: str) -> dict[str, str]:
    """Field name -> type of a payload part ("Payload", "Slice", ...); "?" marks optional."""
    return dict(contract()["payload"][typename])


def viewable_types() -> dict[str, str | None]:
    """Class name -> kind value of the rows View Tensor is offered on."""
    return dict(contract()["viewable_types"]["types"])


def no_numbers_patterns() -> dict[str, str]:
    """Class name -> the regex of the values of its rows that hold no numbers to draw
    (strings, handles): View Tensor is not offered there."""
    return dict(contract()["viewable_types"]["no_numbers"]["patterns"])
