"""The classic Notebook's Variable Inspector's wrapping (hosts/notebook/inspector_classic.py),
on the Inspector's own ``_getcontentof`` text and on the rows kept between refreshes; the
real kernel runs are tests/e2e/test_jupyter_classic_inspector.py."""

from __future__ import annotations

import json

import pytest

from tf_debug_repr.hosts.notebook import inspector, inspector_classic

# the Inspector's own function, as var_list.py (jupyter_contrib_nbextensions 0.7) has it
OWN_CONTENT = """
def _getcontentof(x):
    length = 150
    if type(x).__name__ == 'DataFrame':
        colnames = ', '.join(x.columns.map(str))
        content = "Column names: %s" % colnames
    elif type(x).__name__ == 'Series':
        content = "Series [%d rows]" % x.shape
    elif type(x).__name__ == 'ndarray':
        content = x.__repr__()
    else:
        if hasattr(x, '__len__'):
            if len(x) > length:
                content = str(x[:length])
        else:
            content = str(x)
        if len(content) > 150:
            return content[:150] + " ..."
    return content
"""


def own_content():
    ns: dict = {}
    exec(OWN_CONTENT, ns)
    return ns["_getcontentof"]


def test_content_is_what_the_inspector_meant_escaped_and_never_raises():
    own = own_content()
    with pytest.raises(UnboundLocalError):
        own("short")
    guarded = inspector_classic._wrap_content(own)
    assert guarded("short") == "short"
    assert guarded([1, 2]) == "[1, 2]"
    assert guarded("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"
    assert guarded("x" * 200) == "x" * 150  # its own branch (x[:150]), unchanged
    assert guarded(7) == "7"

    class Hostile:
        def __len__(self) -> int:
            return 3

        def __str__(self) -> str:
            raise RuntimeError("no")

    assert guarded(Hostile()) == "(tf-debug-repr: RuntimeError)"


def test_the_inspectors_script_gets_its_wrap_before_its_first_print_and_nothing_else_does():
    script = ["import json\n", "_nms = NamespaceMagics()\n", "def _getcontentof(x):\n"]
    script += ["    pass\n"] * 20 + [
        "def var_dic_list():\n",
        "    pass\n",
        "print(var_dic_list())\n",
    ]
    out = inspector_classic.transform(list(script))
    assert len(out) == len(script) + 1 and out[-1] == "print(var_dic_list())\n"
    assert out[-2].endswith(".wrap_classic(globals())\n") and "inspector'" in out[-2]
    user = ["print(var_dic_list())\n"] * 30
    assert inspector_classic.transform(list(user)) == user


def test_unchanged_tensors_keep_their_rows_and_changed_ones_are_read_again():
    tf = pytest.importorskip("tensorflow")

    class Names:
        def __init__(self, ns: dict) -> None:
            self.ns = ns

        def who_ls(self) -> list[str]:
            return [n for n in self.ns if not n.startswith("_") and n != "var_dic_list"]

    ns: dict = {"x": tf.constant([1.0, 2.0]), "v": tf.Variable([3.0]), "batch": []}
    ns["batch"] = [tf.ones((2,)), tf.zeros((3,))]
    ns["_nms"] = Names(ns)
    ns["_getcontentof"] = own_content()
    ns["var_dic_list"] = lambda: json.dumps([])  # no other names in this namespace
    inspector.wrap_classic(ns)
    first = json.loads(ns["var_dic_list"]())
    names = [r["varName"] for r in first]
    assert names == ["x", "v", "batch", "batch[0]", "batch[1]"]
    again = json.loads(ns["var_dic_list"]())
    assert again == first
    ns["v"].assign([float("nan")])
    ns["batch"].append(tf.ones((4,)))
    ns["x"] = tf.constant([5.0])
    changed = {r["varName"]: r for r in json.loads(ns["var_dic_list"]())}
    assert changed["v"]["varContent"].startswith("float32[1] ‼ [nan]")
    assert changed["batch"]["varShape"] == "3 items"
    assert changed["x"]["varShape"] == "1"
