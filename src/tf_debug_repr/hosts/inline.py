"""``tf_debug_repr.inline_values(names)``: the short form of each TF value among ``names`` in
the caller's frame, for the editor's inline values (VS Code's ``InlineValuesProvider`` asks it
once per stop for the names on the lines in view).

``names`` is data: a JSON list of strings, each looked up as a plain name in the frame's locals,
then its module's globals (never evaluated, no attribute read: a property is the program's
code). Only TF values answer; each answer is the summary line the Variables pane shows,
rendered within ``CHARS`` characters by the same priorities (dtype and shape, NaN/Inf counts,
range and mean first), with the gradient's and ``Δ`` marks kept whole. Bounded: ``MAX_NAMES`` names, ``SECONDS`` of reading.
"""

from __future__ import annotations

import json
import time
from types import FrameType
from typing import Any

from ..core import expressions
from ..core import formatting as fmt
from ..core.guards import remote_device
from ..core.tf_types import kind_of
from ..core.view_model import error_note
from ..views import dispatch
from ..views import tensors as tensor_views

MAX_NAMES = 200
CHARS = 80
SECONDS = 2.0


def _lookup(frame: FrameType, name: str) -> tuple[bool, Any]:
    local_names = frame.f_locals
    if name in local_names:
        return True, local_names[name]
    if name in frame.f_globals:
        return True, frame.f_globals[name]
    return False, None


def short_form(value: Any) -> str:
    """A tensor's or variable's summary parts rendered within ``CHARS`` by their priority
    (inline elements, then facts, then moments go first; ``‼`` flags stay), with the
    features' marks kept whole (``∇‖g‖=…`` of a variable, ``Δ``); any other TF value's
    summary line, cut."""
    try:
        if remote_device(value) is not None:  # a worker's value: the views' bounded read
            return fmt.clip(dispatch.summary(value), CHARS)
        tensor = dispatch.values_of(value)
        if tensor is None or not tensor_views.has_values(tensor):
            return fmt.clip(dispatch.summary(value), CHARS)
        line = fmt.render(tensor_views.summary_parts(tensor), CHARS)
        return fmt.with_marks(line, dispatch.marks(value, kind_of(value)), CHARS)
    except Exception as exc:
        return error_note(exc).text


def inline_values(frame: FrameType, names_json: str) -> str:
    """``{"w": "float32[64, 10] x∈[…] μ=0.1", …}`` as JSON for the TF values among the
    names; a name that is no identifier, is not in the frame or is no TF value is left out."""
    try:
        names = json.loads(names_json) if isinstance(names_json, str) else []
    except ValueError:
        names = []
    if not isinstance(names, list):
        names = []
    found: dict[str, str] = {}
    deadline = time.perf_counter() + SECONDS
    for raw in names[:MAX_NAMES]:
        name = expressions.identifier(raw)
        if name is None or name in found:
            continue
        if time.perf_counter() > deadline:
            break
        present, value = _lookup(frame, name)
        if present and kind_of(value) is not None:
            found[name] = short_form(value)
    return json.dumps(found, ensure_ascii=False)
