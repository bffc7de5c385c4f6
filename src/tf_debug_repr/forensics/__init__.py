"""Forensics: the NaN/Inf stop (``numerics``), ``Δ since last stop`` (``snapshots``,
``change_views``), ``tf_debug_repr.memory()`` (``memory``), and ``features``, which registers
them with the views."""
