"""The core: the views' vocabulary (``view_model``), which kind a type is (``tf_types``), the
harmlessness guards, a tensor's figures (``stats``), numbers and summary lines as text
(``formatting``), the registry of additions, ``patch_once`` and the wiring up to the catalog.
Imports nothing above itself and never TensorFlow at import time."""
