"""``%load_ext tf_debug_repr``: IPython formatters (``display``) that draw a payload as a PNG
(``pictures``, ``colour_maps``, ``pixel_font``, ``png``) with no plotting library."""
