"""End to end (issue 26), tests/programs/never_worse_views.py under a real debugpy: no row
reads as an error outside the trailing ``raise when read (N)`` groups, every row's
expression evaluates to what the row shows, a metric not built yet says so in words, and
the program's own ``device``/``shape`` properties are called no more often than under
stock debugpy for the same looks."""

from __future__ import annotations

import re

import pytest

from tf_debug_repr.hosts.demo.dap_client import DapError, Variable, line_of

from ..conftest import Stopped, program_path, start_stopped
from .test_real_programs import GROUPS, same_count, same_value

pytestmark = pytest.mark.e2e

PROGRAM = "never_worse_views.py"
MARKERS = ["BREAKPOINT_ATTENTION", "BREAKPOINT_METRICS", "BREAKPOINT_RESTORED"]
ERROR_LOOKING = re.compile(r"<error|Traceback|Error|raises")
RAISED_GROUP = "raise when read ("
# An attribute that is a property making a new object at each read: the same repr but its
# address (Keras's compiled_metrics, TF's internal function specs), or a private internal
# dict whose repr is cut at another key.
ADDRESS = re.compile(r" at 0x[0-9a-f]+")
UNSTABLE = ("_nodes_by_id", "_nodes_by_name")


def marker_at(s: Stopped) -> str:
    lines = {line_of(program_path(PROGRAM), m): m for m in MARKERS}
    return lines[s.client.top_frame(s.thread_id)["line"]]


def walk(s: Stopped, rows: list[Variable], path: str, depth: int, seen: dict) -> None:
    """Expand ``rows`` ``depth`` levels; ``seen`` collects rows that read as an error
    outside a raise-when-read group, expressions that do not give what their row shows,
    and every raise-when-read row."""
    for row in rows:
        if row.name in GROUPS:
            continue
        where = f"{path}/{row.name}"
        seen["rows"] += 1
        inside = RAISED_GROUP in path
        if row.name.startswith(RAISED_GROUP):
            seen["groups"].append((where, row))
        if inside:
            seen["raised"].append((where, row))
        elif ERROR_LOOKING.search(row.value):
            seen["errors"].append(f"{where} = {row.value[:200]}")
        if row.evaluate_name and row.name not in UNSTABLE:
            try:
                result = s.evaluate(row.evaluate_name)["result"]
            except DapError as exc:
                seen["expressions"].append(f"{where}: {row.evaluate_name} raises {exc}")
            else:
                same = same_value(row, result) or ADDRESS.sub("", result) == ADDRESS.sub(
                    "", row.value
                )
                if not (same or same_count(s, row)):
                    seen["expressions"].append(
                        f"{where}: {row.evaluate_name} -> {result[:120]!r}, row {row.value[:120]!r}"
                    )
        if row.reference and depth > 0:
            walk(s, s.children(row), where, depth - 1, seen)


@pytest.fixture(scope="module")
def stops() -> dict[str, list[dict]]:
    """Every stop of the program, each walked two levels below its locals."""
    s = start_stopped(PROGRAM, markers=MARKERS)
    found: dict[str, list[dict]] = {m: [] for m in MARKERS}
    try:
        while True:
            marker = marker_at(s)
            # the probe's test's look, first at its stop, as in a session of its own: the
            # probe is made just before it, and nothing else is read there before
            probe = look_at_the_probe(s) if marker == "BREAKPOINT_RESTORED" else None
            local = s.locals()
            seen: dict = {"rows": 0, "errors": [], "expressions": [], "raised": [], "groups": []}
            names = {
                "BREAKPOINT_ATTENTION": ["self", "x", "attn_output", "attn_scores"],
                "BREAKPOINT_METRICS": ["self", "metrics"],
                "BREAKPOINT_RESTORED": ["call", "traced", "big_strings", "loaded"],
            }[marker]
            walk(s, [local[n] for n in names if n in local], "", 2, seen)
            seen["locals"] = local
            if marker == "BREAKPOINT_METRICS":  # the row and the watch of self.metrics
                seen["metrics_row"] = s.child_map(local["self"])["metrics"].value
                seen["metrics_watch"] = s.evaluate("self.metrics")["result"]
                seen["self_names"] = [row.name for row in s.children(local["self"])]
            if marker == "BREAKPOINT_RESTORED":
                seen["traced_output"] = {
                    r.name: r
                    for r in s.children(s.child_map(local["traced"])["structured_outputs"])
                }
                seen["numpy"] = s.child_map(local["big_strings"])["numpy"]
                seen["numpy_result"] = s.evaluate(seen["numpy"].evaluate_name)["result"]
                seen["first_string"] = s.child_map(local["big_strings"])["[0]"]
            if probe is not None:
                seen["probe"] = probe
            found[marker].append(seen)
            if marker == "BREAKPOINT_RESTORED":
                break
            s.resume_to_next_stop()
    finally:
        s.client.close()
    return found


def test_no_row_reads_as_an_error_outside_the_raise_when_read_group(stops):
    walked = [seen for seen_list in stops.values() for seen in seen_list]
    assert len(walked) >= 4 and sum(seen["rows"] for seen in walked) > 1000
    for seen in walked:
        assert not seen["errors"], "\n".join(seen["errors"])
        assert not seen["expressions"], "\n".join(seen["expressions"])


def test_layer_attributes_that_raise_are_one_trailing_group_of_one_line_each(stops):
    # the real call of CrossAttention (its last stop: Keras's build pass came first)
    seen = stops["BREAKPOINT_ATTENTION"][-1]
    raised = {where: row for where, row in seen["raised"]}
    # the layer's own input/output, and its sublayers' (attention, layer norm)
    owners = (
        "/self",
        "/self/mha",  # the sublayers, by the attributes holding them
        "/self/layernorm",
    )
    groups = {where: row for where, row in seen["groups"]}
    for owner in owners:
        group = [row for where, row in groups.items() if where.rsplit("/", 1)[0] == owner]
        assert len(group) == 1, owner
        assert re.fullmatch(r"raise when read \(\d+\)", group[0].name)
        assert "input" in group[0].value and "output" in group[0].value, group[0].value
    for name in ("input", "output"):  # the layer's own, one expansion further
        pattern = r"/self/raise when read \(\d+\)/" + name
        assert any(re.fullmatch(pattern, where) for where in raised), name
    for where, row in raised.items():
        assert re.fullmatch(r"[A-Za-z]+(Error|Exception): \S.*", row.value), (where, row.value)
        assert "Traceback" not in row.value and "\n" not in row.value


def test_the_group_is_last_and_counted(stops):
    seen = stops["BREAKPOINT_METRICS"][0]
    groups = [where for where, _ in seen["raised"]]
    top = {where.split("/")[2] for where in groups if where.startswith("/self/raise when read")}
    assert len(top) == 1
    (name,) = top
    assert [n for n in seen["self_names"] if n not in GROUPS][-1] == name  # the last row
    count = int(name.removeprefix(RAISED_GROUP).rstrip(")"))
    inside = [where for where in groups if where.startswith(f"/self/{name}/")]
    assert count == len(inside) >= 3  # distribute_reduction_method, input, output
    assert {"/self/" + name + "/" + n for n in ("distribute_reduction_method", "input")} <= set(
        inside
    )


def test_compile_metrics_before_the_first_step_is_not_built_yet(stops):
    first = stops["BREAKPOINT_METRICS"][0]
    assert first["metrics_row"] == first["metrics_watch"]
    assert "CompileMetrics 'compile_metrics' not built yet" in first["metrics_row"], first
    assert "<error" not in first["metrics_row"]
    second = stops["BREAKPOINT_METRICS"][-1]["metrics_row"]
    assert "CompileMetrics 'compile_metrics' result={" in second, second


def test_restored_function_rows_evaluate_to_what_they_show(stops):
    seen = stops["BREAKPOINT_RESTORED"][0]
    shape = seen["traced_output"]["shape"]
    assert shape.value == "[?]"  # a graph tensor of unknown rank: its line is its expression
    assert shape.evaluate_name == "'[?]'"
    numpy_row = seen["numpy"]
    assert numpy_row.value == "ndarray string[3] on CPU:0: expand to copy 2.9 MiB to the host"
    assert seen["numpy_result"] == numpy_row.value
    # a long element: its head and length, typed bytes as a short one is; its expression
    # the element, whose own line starts with the same head
    first = seen["first_string"]
    assert first.type == "bytes" and first.value.endswith("… (977 KiB)"), first
    assert first.evaluate_name == "big_strings[0]"


def probe_calls(s: Stopped) -> tuple[int, int]:
    counts = s.evaluate("(PROBE_CALLS['device'], PROBE_CALLS['shape'])", "repl")["result"]
    device, shape = counts.strip("()").split(",")
    return int(device), int(shape)


def look_at_the_probe(s: Stopped) -> list[tuple[int, int]]:
    """What a user does: the Locals pane, a hover and a watch of ``probe``, expanding
    ``holder``; then expanding ``probe``. The counts after each step."""
    counts = []
    local = s.locals()
    assert {"probe", "holder"} <= set(local)
    for context in ("hover", "watch", "repl"):
        s.evaluate("probe", context)
    s.children(local["holder"])
    counts.append(probe_calls(s))
    s.children(local["probe"])
    counts.append(probe_calls(s))
    return counts


def test_the_programs_tensor_like_properties_are_called_no_more_than_under_stock(stops):
    # the plugin's counts: the module's session looked at the probe first at its stop (a
    # session of its own before)
    plugin = stops["BREAKPOINT_RESTORED"][-1]["probe"]
    stock_session = start_stopped(
        PROGRAM, marker="BREAKPOINT_RESTORED", env={"TF_DEBUG_REPR_DISABLE": "1"}
    )
    try:
        stock = look_at_the_probe(stock_session)
    finally:
        stock_session.client.close()
    # showing it calls neither; expanding it reads each attribute once, as stock does
    assert plugin[0] == stock[0] == (0, 0), (plugin, stock)
    assert plugin[1] == stock[1] == (1, 1), (plugin, stock)
