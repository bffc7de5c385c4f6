"""Dicts the plugin shows as a row's value (an attribute, a loss's keyword arguments, a
config) whose keys are the program's own classes (issue 16 item 7's remainder): pydevd
would write each key's own ``__repr__`` into its children's expressions. They are shown
by the plugin's view, each key quoted from an exact copy."""

from __future__ import annotations

from tf_debug_repr import views
from tf_debug_repr.core.mappings import KeyedDict

CALLED = []


class Key(str):
    def __repr__(self):
        CALLED.append(self)
        return "__import__('os').system('echo owned')"

    __str__ = __format__ = __repr__  # type: ignore[assignment]


class Thing:
    def __repr__(self):
        CALLED.append(self)
        return "thing"


def test_plain_dicts_are_left_to_pydevd():
    keyed_by_objects = {Thing(): 1, (1, "x"): 2}  # Keras's dicts keyed by layers
    for value in ({"a": 1, 2: 3, 1.5: 4, None: 5, b"b": 6}, keyed_by_objects, [1], "x"):
        assert views.presented(value) is value


def test_a_dict_with_a_str_subclass_key_is_shown_with_quoted_keys():
    CALLED.clear()
    data = {Key("k"): 1, "it's": 2, Thing(): 3, True: 4, (1, Key("t")): 5}
    shown = views.presented(data)
    assert isinstance(shown, KeyedDict)
    assert views.summary(shown) == "dict of 5 items: keys 'k', \"it's\", <Thing key 2>, True, …"
    rows = views.children(shown)
    assert [(r.name, r.expression) for r in rows] == [
        ("'k'", "['k']"),
        ('"it\'s"', '["it\'s"]'),
        ("<Thing key 2>", None),
        ("True", "[True]"),
        ("<tuple key 4>", None),
    ]
    for row in rows:  # each expression reaches its value
        if row.expression is not None:
            assert eval("d" + row.expression, {"d": data}) == row.resolve()
    assert not CALLED  # no key's own code ran
    assert isinstance(views.presented({(1, Key("t")): 1}), KeyedDict)  # inside a tuple
