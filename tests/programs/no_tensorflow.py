"""A program that never imports TensorFlow (or numpy)."""

import sys

words = ["plain", "python"]
print("modules", len(sys.modules))  # BREAKPOINT
