"""TensorFlow's import, looked at from inside: is the importing thread traced while TF's own
modules run? (tests/e2e/test_quiet_import.py: pydevd's trace function is lifted for the
import where nothing in it could stop.) And how often did the garbage collector run in it?
(core/collector.py: not at all under a debugger.)"""

import gc
import sys

traced_during_import = []  # one entry: was a trace function set as tensorflow.python loaded


def _on_import(event, args):
    if event == "import" and not traced_during_import and str(args[0]) == "tensorflow.python":
        traced_during_import.append(sys.gettrace() is not None)


sys.addaudithook(_on_import)
collections_during_import = [0]


def _count(phase, info):
    if phase == "start":
        collections_during_import[0] += 1


gc.callbacks.append(_count)
import tensorflow as tf  # IMPORT_LINE  # noqa: E402

gc.callbacks.remove(_count)
collector_after_import = gc.isenabled()

traced_after = sys.gettrace() is not None
x = tf.constant([1.0, 2.0])
print("imported", traced_during_import, traced_after)  # BREAKPOINT
print("done")  # AFTER
