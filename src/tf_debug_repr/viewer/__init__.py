"""The tensor viewer's Python side: the payload (``payload``: figures, histogram, a 2-D slice
cut on the value's device, an image grid) and "Save as .npy" (``npy``)."""
