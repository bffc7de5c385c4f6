"""numpy and pandas values, which debugpy's own plugins present."""

import numpy as np
import pandas as pd

array = np.arange(12, dtype=np.float64).reshape(3, 4)
frame = pd.DataFrame({"a": [1, 2, 3], "b": [0.5, 1.5, 2.5]})
series = frame["b"]
print("ready")  # BREAKPOINT
