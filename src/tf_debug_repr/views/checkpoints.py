"""``tf.train.Checkpoint`` (what it tracks, its save counter) and
``tf.train.CheckpointManager`` (directory, latest checkpoint, checkpoints kept).

Never creates anything: a checkpoint's ``save_counter`` property makes its variable on
first read, so before the first save or restore the counter is a line of text and that
attribute is left unread.
"""

from __future__ import annotations

import os
from typing import Any

from ..core import formatting as fmt
from ..core.guards import harmless
from ..core.view_model import Child, Note
from . import attributes as attribute_views
from . import trackables
from .attributes import guarded, guarded_rows

COUNTER = "save_counter"
NO_COUNTER = "not created yet: no save or restore so far"


def _counter(checkpoint: Any) -> Any:
    """The save counter variable, or None before the first save (never created here)."""
    return getattr(checkpoint, "_save_counter", None)


def _counter_text(checkpoint: Any) -> str:
    counter = _counter(checkpoint)
    if counter is None:
        return "no save yet"
    with harmless():
        return f"saved {int(counter.numpy())}×"


def _tracked(checkpoint: Any) -> list[tuple[str, Any]]:
    return [(n, v) for n, v in trackables.dependencies(checkpoint) if n != COUNTER]


def checkpoint_summary(checkpoint: Any) -> str:
    """``Checkpoint tracking model (Dense), step (variable); saved 2×``."""
    names = ", ".join(f"{n} ({trackables.what(v)})" for n, v in _tracked(checkpoint))
    return fmt.clip(f"Checkpoint tracking {names or 'nothing'}; {_counter_text(checkpoint)}")


def checkpoint_children(checkpoint: Any) -> list[Child]:
    rows = []
    shown: dict[int, str] = {}
    for name, value in _tracked(checkpoint):
        if trackables.reachable(name):
            rows.append(Child(trackables.row_name(name, value), value, f".{name}"))
            shown[id(value)] = name
    rows.append(_counter_row(checkpoint, ".save_counter", COUNTER))
    skip = {COUNTER} if _counter(checkpoint) is None else set()
    attributes = attribute_views.read_attributes(checkpoint, skip=skip)
    return rows + attribute_views.attribute_rows(checkpoint, attributes, {COUNTER}, shown)


def _counter_row(checkpoint: Any, expression: str, name: str = "save counter") -> Child:
    """The counter's row: ``save_counter`` on the checkpoint (its attribute), ``save counter``
    on a manager (its checkpoint's)."""
    if _counter(checkpoint) is None:
        return Child(name, Note(NO_COUNTER))
    return guarded(name, lambda: checkpoint.save_counter, expression)


# --------------------------------------------------------------------------- manager


def manager_summary(manager: Any) -> str:
    """``CheckpointManager '/tmp/ck': 2 checkpoints kept (max 3), latest ckpt-2; saved 2×``."""
    with harmless():
        kept = list(manager.checkpoints)
        latest = manager.latest_checkpoint
        keep = getattr(manager, "_max_to_keep", None)
        counter = _counter_text(manager.checkpoint)
        directory = manager.directory
    most = f" (max {keep})" if keep is not None else ""
    last = f"latest {os.path.basename(latest)}" if latest else "none saved yet"
    return fmt.clip(
        f"CheckpointManager {directory!r}: {len(kept)} checkpoint"
        f"{'' if len(kept) == 1 else 's'} kept{most}, {last}; {counter}"
    )


_MANAGER_ROWS = (  # public attributes by their own names (stock debugpy's)
    ("directory", "directory"),
    ("latest_checkpoint", "latest_checkpoint"),
    ("checkpoints", "checkpoints"),
    ("max to keep", "_max_to_keep"),
)


def manager_children(manager: Any) -> list[Child]:
    rows = guarded_rows(manager, _MANAGER_ROWS)
    with harmless():
        checkpoint = manager.checkpoint
    rows.append(_counter_row(checkpoint, ".checkpoint.save_counter"))
    rows.append(Child("checkpoint", checkpoint, ".checkpoint"))
    attributes = attribute_views.read_attributes(manager)
    # private ones stay in their row too: its expression lists every one
    covered = {attr for _, attr in _MANAGER_ROWS if not attr.startswith("_")} | {"checkpoint"}
    return rows + attribute_views.attribute_rows(manager, attributes, covered)
