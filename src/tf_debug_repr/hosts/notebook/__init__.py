"""``%load_ext tf_debug_repr``: IPython formatters (``display``) that show a payload's picture
as HTML: its pixels one PNG (``pictures``, ``colour_maps``, ``png``), its labels text
(``picture_html``), with no plotting library."""
