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


def test_run_around_wraps_the_module_code_once_and_leaves_when_it_raises(
    tmp_path, monkeypatch, capsys
):
    (tmp_path / "around_module_for_test.py").write_text(
        "import sys\nSEEN = list(sys._around_log)\n"
    )
    (tmp_path / "around_failing_for_test.py").write_text("raise ValueError('broken module')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    log: list = []
    monkeypatch.setattr(sys, "_around_log", log, raising=False)

    def enter():
        log.append("enter")
        return "token"

    for name in ("around_module_for_test", "around_failing_for_test"):
        import_hooks.run_around(name, enter, lambda token: log.append(("leave", token)))
    import around_module_for_test

    assert around_module_for_test.SEEN == ["enter"], "the module's code ran between the two"
    assert log == ["enter", ("leave", "token")]
    del log[:]
    try:
        import around_failing_for_test  # noqa: F401
    except ValueError as exc:
        assert "broken module" in str(exc)
    else:
        raise AssertionError("the module's error must reach the importer")
    assert log == ["enter", ("leave", "token")], "left when the module's code raises"

    # an enter or leave that raises never breaks the import; a module already imported is
    # not wrapped again
    (tmp_path / "around_guarded_for_test.py").write_text("VALUE = 7\n")
    import_hooks.run_around("around_guarded_for_test", lambda: 1 / 0, lambda token: 1 / 0)
    import around_guarded_for_test

    assert around_guarded_for_test.VALUE == 7
    err = capsys.readouterr().err
    assert "before an import" in err and "after an import" in err
    import_hooks.run_around("around_module_for_test", enter, lambda token: log.append("again"))
    assert "around_module_for_test" not in import_hooks._around


def test_the_import_is_left_traced_without_a_debugger_or_with_the_switch(monkeypatch):
    from tf_debug_repr.hosts.pydevd import quiet_import

    assert quiet_import.enabled()
    assert quiet_import.pause() is None, "no pydevd here: nothing to lift"
    quiet_import.resume(None)
    monkeypatch.setenv(quiet_import.ENV, "1")
    assert not quiet_import.enabled()
    monkeypatch.setenv(quiet_import.ENV, "0")
    assert quiet_import.enabled()


def test_only_pydevds_trace_function_is_lifted():
    from tf_debug_repr.hosts.pydevd import quiet_import

    def somebody_elses_tracer(frame, event, arg):  # coverage.py's, a profiler's
        return None

    class Tracer:
        def __call__(self, frame, event, arg):
            return None

    assert not quiet_import._pydevds(somebody_elses_tracer)
    assert not quiet_import._pydevds(Tracer())
    Tracer.__module__ = "_pydevd_bundle.pydevd_cython"  # pydevd's Cython wrapper's module
    assert quiet_import._pydevds(Tracer())
    assert quiet_import._pydevds(Tracer().__call__)
