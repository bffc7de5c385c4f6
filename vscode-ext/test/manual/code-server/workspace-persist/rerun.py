"""For driver/persist.js: `weights` holds a new value at each run (run.txt counts the runs)."""

import pathlib

import numpy as np

counter = pathlib.Path(__file__).with_name("run.txt")
run = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(run))
weights = np.arange(6, dtype=np.float32).reshape(2, 3) * run
print("run", run, float(weights.sum()))  # breakpoint here
