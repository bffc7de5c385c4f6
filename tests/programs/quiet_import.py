"""TensorFlow's import, looked at from inside: is the importing thread traced while TF's own
modules run? (tests/e2e/test_quiet_import.py: pydevd's trace function is lifted for the
import where nothing in it could stop.)"""

import sys

traced_during_import = []  # one entry: was a trace function set as tensorflow.python loaded


def _on_import(event, args):
    if event == "import" and not traced_during_import and str(args[0]) == "tensorflow.python":
        traced_during_import.append(sys.gettrace() is not None)


sys.addaudithook(_on_import)

import tensorflow as tf  # IMPORT_LINE  # noqa: E402

traced_after = sys.gettrace() is not None
x = tf.constant([1.0, 2.0])
print("imported", traced_during_import, traced_after)  # BREAKPOINT
print("done")  # AFTER
