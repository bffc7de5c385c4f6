"""A payload's picture as HTML for a notebook cell: the pixels (``pictures``) as one PNG
image, and every label as text beside it, so the labels follow the notebook's theme, stay
sharp at any zoom, can be selected and are read by screen readers.

Every text is escaped (it comes from the debuggee's numbers, and the alt text from its
summary: data, never markup). The colour bar is a CSS gradient through the map's anchors,
which is how the map itself interpolates (linearly in RGB between evenly spaced anchors);
the NaN/±Inf bars of a histogram are coloured boxes on the bars' count scale.
"""

from __future__ import annotations

import base64
import html

import numpy as np

from . import pictures
from .png import encode_png

# JupyterLab's theme variables, with fallbacks for other front ends (VS Code's notebooks)
LABEL = "color:var(--jp-ui-font-color2,inherit);font-size:0.9em;white-space:nowrap"
LINE = "1px solid var(--jp-ui-font-color2,currentColor)"
GAP = 6  # pixels between the parts of a picture
COLOUR_BAR_WIDTH = 12
SPECIAL_WIDTH = "3em"


def _img(pixels: np.ndarray, alt: str, style: str = "") -> str:
    data = base64.b64encode(encode_png(pixels)).decode("ascii")
    height, width = pixels.shape[:2]
    return (
        f'<img src="data:image/png;base64,{data}" width="{width}" height="{height}"'
        f' alt="{html.escape(alt)}" style="display:block;image-rendering:pixelated;'
        f'max-width:100%;height:auto;{style}"/>'
    )


def _label(text: str, style: str = "") -> str:
    return f'<span style="{LABEL};{style}">{html.escape(text)}</span>'


def _rgb(colour: tuple[int, ...]) -> str:
    return "rgb({},{},{})".format(*(int(c) for c in colour[:3]))


def heatmap_html(picture: pictures.Heatmap, alt: str) -> str:
    image = _img(picture.pixels, alt)
    scale = picture.scale
    if scale is None:
        return f"<div>{image}</div>"
    stops = ",".join(
        f"{_rgb(colour)} {100 * i / (len(scale.anchors) - 1):g}%"
        for i, colour in enumerate(scale.anchors)
    )
    bar = (
        f'<div aria-hidden="true" style="flex:none;width:{COLOUR_BAR_WIDTH}px;'
        f'background:linear-gradient(to top,{stops})"></div>'
    )
    widest = max(len(scale.low), len(scale.high))
    labels = [_label(scale.high, "position:absolute;top:0;left:0")]
    if scale.zero is not None:
        where = f"position:absolute;left:0;top:{100 * scale.zero:.1f}%;transform:translateY(-50%)"
        labels.append(_label("0", where))
    labels.append(_label(scale.low, "position:absolute;bottom:0;left:0"))
    column = (
        f'<div title="colour scale" style="flex:none;position:relative;min-width:{widest + 1}ch">'
        f"{''.join(labels)}</div>"
    )
    return (
        f'<div style="display:flex;gap:{GAP}px;align-items:stretch;max-width:100%">'
        f"{image}{bar}{column}</div>"
    )


def histogram_html(picture: pictures.Histogram, alt: str) -> str:
    columns = ["auto"]  # the peak count
    top = [_label(picture.peak, "align-self:start;justify-self:end")]
    bottom = ["<span></span>"]
    if picture.pixels is not None:
        columns.append("auto")
        top.append(_img(picture.pixels, alt, f"border-left:{LINE};border-bottom:{LINE}"))
        edges = _label(picture.low) + _label(picture.high)
        bottom.append(
            f'<div style="display:flex;justify-content:space-between;gap:1em">{edges}</div>'
        )
    for special in picture.specials:
        columns.append(SPECIAL_WIDTH)
        top.append(
            f'<div title="{html.escape(special.label)}: {special.count:,}"'
            f' style="height:{special.height}px;margin:0 4px;background:{_rgb(special.colour)};'
            f'border-bottom:{LINE}"></div>'
        )
        bottom.append(_label(special.label, "justify-self:center"))
    grid = (
        f"display:inline-grid;grid-template-columns:{' '.join(columns)};column-gap:{GAP}px;"
        f"align-items:end;max-width:100%"
    )
    return f'<div role="group" aria-label="{html.escape(alt)}" style="{grid}">{"".join(top + bottom)}</div>'


def html_of(picture: pictures.Picture, alt: str) -> str:
    """The picture as HTML; ``alt`` says what it is (the caption)."""
    if isinstance(picture, pictures.Heatmap):
        return heatmap_html(picture, alt)
    if isinstance(picture, pictures.Histogram):
        return histogram_html(picture, alt)
    return f"<div>{_img(picture.pixels, alt)}</div>"
