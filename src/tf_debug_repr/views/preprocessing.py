"""What a preprocessing layer holds besides weights: a lookup's vocabulary
(``StringLookup``, ``IntegerLookup``, ``TextVectorization``), a ``Normalization``'s mean and
variance. Such a layer often has no weights at all, so without this it reads "0 params".

Layers are recognised by what they offer (``get_vocabulary``/``vocabulary_size``;
``input_mean``/``input_variance``), which Keras 2 and Keras 3 share. Only their documented
read-only queries are called, harmlessly (eagerly, off every tape).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import bounded
from ..core import formatting as fmt
from ..core.guards import harmless
from ..core.view_model import FACADE, Child, Note, call, lazy

MODULE = FACADE
FIRST = 20  # vocabulary entries listed
SUMMARY_ENTRIES = 5
# get_vocabulary() exports and sorts the whole table: the summary line, computed for every
# row that shows the layer, reads the first entries only of a vocabulary up to this size.
SUMMARY_VOCABULARY_LIMIT = 20_000
VOCABULARY_LIMIT = 200_000  # the first entries of a bigger one are not read at all
NORMALIZATION_VALUES = 4


def is_lookup(layer: Any) -> bool:
    return callable(getattr(layer, "get_vocabulary", None)) and callable(
        getattr(layer, "vocabulary_size", None)
    )


def is_normalization(layer: Any) -> bool:
    return hasattr(layer, "input_mean") and hasattr(layer, "input_variance")


def vocabulary_size(layer: Any) -> int:
    return bounded.call(_size, layer, what=f"{type(layer).__name__}.vocabulary_size()")


def _size(layer: Any) -> int:
    with harmless():
        return int(layer.vocabulary_size())


def vocabulary_head(layer: Any, count: int = FIRST) -> list | Note:
    """The first ``count`` vocabulary entries as plain Python strings/ints (Keras gives
    numpy scalars, whose repr would read ``np.str_('a')``). ``get_vocabulary()`` exports and
    sorts the whole table: above ``VOCABULARY_LIMIT`` entries it is not called (a line
    says so), below it the call is bounded in time."""
    size = vocabulary_size(layer)
    if size > VOCABULARY_LIMIT:
        return Note(
            f"not read: {fmt.count(size)} entries, and get_vocabulary() exports and sorts "
            "them all (ask for it in the Debug Console if you need it)"
        )
    entries = bounded.call(_vocabulary, layer, what=f"{type(layer).__name__}.get_vocabulary()")
    return [entry.item() if isinstance(entry, np.generic) else entry for entry in entries[:count]]


def _vocabulary(layer: Any) -> list:
    with harmless():
        return list(layer.get_vocabulary())


def normalization_state(layer: Any) -> dict[str, Any]:
    """``{"mean": …, "variance": …}``: the adapted or built values, else the ones given to
    the constructor (applied at build); empty when there are none yet."""
    for mean, variance in (("mean", "variance"), ("input_mean", "input_variance")):
        values = {"mean": getattr(layer, mean, None), "variance": getattr(layer, variance, None)}
        if all(v is not None for v in values.values()):
            return values
    return {}


def _values_text(value: Any) -> str:
    with harmless():
        array = np.asarray(value, dtype=np.float64).ravel()
    shown = ", ".join(fmt.number(v) for v in array[:NORMALIZATION_VALUES])
    if array.size == 1:
        return shown
    return f"[{shown}{', …' if array.size > NORMALIZATION_VALUES else ''}]"


def state_text(layer: Any) -> str:
    """``vocabulary 4: '[UNK]' 'c' 'b' 'a'`` or ``mean=[2, 4] variance=[1, 4]``; "" for
    other layers."""
    if is_lookup(layer):
        size = vocabulary_size(layer)
        text = f"vocabulary {fmt.count(size)}"
        if size <= SUMMARY_VOCABULARY_LIMIT:
            head = vocabulary_head(layer, SUMMARY_ENTRIES)
            assert isinstance(head, list)  # the size is below VOCABULARY_LIMIT
            text += (
                ": " + " ".join(repr(entry) for entry in head) + (" …" if size > len(head) else "")
            )
        return text
    if is_normalization(layer):
        state = normalization_state(layer)
        given = "" if getattr(layer, "mean", None) is not None else " (given, applied at build)"
        return fmt.join([f"{key}={_values_text(v)}" for key, v in state.items()]) + (
            given if state else ""
        )
    return ""


def state_children(layer: Any) -> list[Child]:
    """Rows for the state, each with an expression giving it (the Normalization's values
    are its attributes, shown among the layer's attributes)."""
    if not is_lookup(layer):
        return []
    return [
        lazy("vocabulary size", lambda: vocabulary_size(layer), call("{}.vocabulary_size()")),
        lazy(
            f"vocabulary[:{FIRST}]",
            lambda: vocabulary_head(layer),
            call(f"{MODULE}.vocabulary_head({{}})"),
        ),
    ]
