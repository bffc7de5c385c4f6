"""Post-import hooks fire once the program imports a module, and never break an import."""

import sys
import textwrap

from tf_debug_repr.activation import import_hooks
from tf_debug_repr.core.tf_types import Kind, kind_of_type


def test_callback_runs_after_the_module_is_imported(tmp_path, monkeypatch, capsys):
    (tmp_path / "hooked_module_for_test.py").write_text(
        textwrap.dedent("""
        VALUE = 42
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    seen = []
    import_hooks.when_imported("hooked_module_for_test", lambda m: seen.append(m.VALUE))
    import_hooks.when_imported(
        "hooked_module_for_test", lambda m: 1 / 0
    )  # must not break the import
    assert seen == [] and "hooked_module_for_test" not in sys.modules
    import hooked_module_for_test  # noqa: F401

    assert seen == [42]
    assert "hook for hooked_module_for_test failed" in capsys.readouterr().err
    import_hooks.when_imported("hooked_module_for_test", lambda m: seen.append("again"))
    assert seen == [42, "again"], "an already imported module runs the callback at once"


def test_types_are_recognised_without_importing_tensorflow():
    import tensorflow as tf

    assert kind_of_type(type(tf.constant(1.0))) is Kind.EAGER
    assert kind_of_type(type(tf.Variable(1.0))) is Kind.VARIABLE
    assert kind_of_type(tf.SparseTensor) is Kind.SPARSE
    assert kind_of_type(int) is None and kind_of_type(object) is None
