#!/usr/bin/env python3
"""Signed-distance-field glyph ranges for the web map's labels, made from a Debian font.

MapLibre GL draws text from glyph ranges (`{fontstack}/{start}-{end}.pbf`, 256 code points
each: protobuf `glyphs` messages holding 24 px SDF bitmaps with a 3 px buffer). `/map` asks the
browser to draw CJK ideographs, kana, hangul, CJK punctuation and full-width forms itself
(MapLibre's `localIdeographFontFamily`), so only the other scripts (Latin digits and letters,
punctuation, Greek, Cyrillic, symbols) come from these files. They are cut here from the font's
outlines (fontTools): each pixel's distance to the flattened outline, signed by the non-zero
winding rule, as node-fontnik encodes it (edge at 191, 8 px radius). Every one of the 256
ranges is written (ranges the browser draws, or the font lacks, hold no glyphs), so a request
for any range is answered.

  .venv/bin/python Scripts/make_glyphs.py [--font /usr/share/fonts/truetype/wqy/wqy-microhei.ttc]
      [--fontstack wqy-microhei] [--out .venv/share/citytwin/glyphs]

`citytwin serve` serves the result at /fonts/{fontstack}/{range}.pbf (Sources/Server/WebMap/GlyphAssets.swift).
"""
import argparse
import os
import sys

import numpy as np
from fontTools.pens.basePen import BasePen
from fontTools.ttLib import TTCollection, TTFont

SIZE, BUFFER, RADIUS, CUTOFF = 24, 3, 8.0, 0.25
# Baseline offset: MapLibre places the glyph top `top` px below the line's top (its own local
# ideographs use ascent - 27.5 at 24 px), so Latin digits sit on the ideographs' baseline.
TOP_OFFSET = 27


def local_to_browser(cp):
    """Code points MapLibre draws with the browser's font when localIdeographFontFamily is set."""
    return (0x2E80 <= cp <= 0x9FFF or 0xAC00 <= cp <= 0xD7AF or 0xF900 <= cp <= 0xFAFF
            or 0xFF00 <= cp <= 0xFFEF or 0x20000 <= cp)


class FlattenPen(BasePen):
    """Collects the outline as straight segments in pixel units (curves split in 8)."""

    def __init__(self, glyph_set, scale):
        super().__init__(glyph_set)
        self.scale, self.segments, self.start, self.current = scale, [], None, None

    def _moveTo(self, p):
        self.start = self.current = p

    def _lineTo(self, p):
        self.segments.append((*self.current, *p))
        self.current = p

    def _curveToOne(self, p1, p2, p3):
        p0 = self.current
        for i in range(1, 9):
            t = i / 8
            u = 1 - t
            x = u ** 3 * p0[0] + 3 * u * u * t * p1[0] + 3 * u * t * t * p2[0] + t ** 3 * p3[0]
            y = u ** 3 * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t ** 3 * p3[1]
            self._lineTo((x, y))

    def _qCurveToOne(self, p1, p2):
        p0 = self.current
        for i in range(1, 9):
            t = i / 8
            u = 1 - t
            self._lineTo((u * u * p0[0] + 2 * u * t * p1[0] + t * t * p2[0], u * u * p0[1] + 2 * u * t * p1[1] + t * t * p2[1]))

    def _closePath(self):
        if self.current is not None and self.start is not None and self.current != self.start:
            self._lineTo(self.start)
        self.current = self.start = None

    _endPath = _closePath


def sdf(segments, left, top, width, height):
    """The SDF bitmap ((width + 2 buffer) x (height + 2 buffer) bytes, rows from the top)."""
    w, h = width + 2 * BUFFER, height + 2 * BUFFER
    xs = left - BUFFER + np.arange(w) + 0.5
    ys = top + BUFFER - np.arange(h) - 0.5
    px, py = np.meshgrid(xs, ys)
    px, py = px.reshape(-1, 1), py.reshape(-1, 1)
    s = np.asarray(segments, dtype=np.float64)
    x0, y0, x1, y1 = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
    dx, dy = x1 - x0, y1 - y0
    length2 = np.maximum(dx * dx + dy * dy, 1e-12)
    t = np.clip(((px - x0) * dx + (py - y0) * dy) / length2, 0, 1)
    distance = np.sqrt(((x0 + t * dx - px) ** 2 + (y0 + t * dy - py) ** 2).min(axis=1))
    # Non-zero winding: signed crossings of a ray to the right.
    upward = (y0 <= py) & (y1 > py)
    downward = (y1 <= py) & (y0 > py)
    cross_x = x0 + (py - y0) / np.where(dy == 0, 1, dy) * dx
    right = cross_x > px
    winding = (upward & right).sum(axis=1) - (downward & right).sum(axis=1)
    signed = np.where(winding != 0, -distance, distance)
    values = np.clip(np.round(255 - 255 * (signed / RADIUS + CUTOFF)), 0, 255).astype(np.uint8)
    return values.tobytes()


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, kind, payload):
    if kind == 0:
        return varint(number << 3) + varint(payload)
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def zigzag(n):
    return (n << 1) ^ (n >> 63)


def glyph_message(cp, glyph_set, glyph_name, scale):
    glyph = glyph_set[glyph_name]
    pen = FlattenPen(glyph_set, scale)
    glyph.draw(pen)
    advance = int(round(glyph.width * scale))
    segments = [(a * scale, b * scale, c * scale, d * scale) for a, b, c, d in pen.segments]
    body = field(1, 0, cp)
    if segments:
        xs = [v for s in segments for v in (s[0], s[2])]
        ys = [v for s in segments for v in (s[1], s[3])]
        left, right = int(np.floor(min(xs))), int(np.ceil(max(xs)))
        bottom, top = int(np.floor(min(ys))), int(np.ceil(max(ys)))
        width, height = max(right - left, 1), max(top - bottom, 1)
        body += field(2, 2, sdf(segments, left, top, width, height))
        body += field(3, 0, width) + field(4, 0, height)
        body += field(5, 0, zigzag(left)) + field(6, 0, zigzag(top - TOP_OFFSET))
    else:
        body += field(3, 0, 0) + field(4, 0, 0) + field(5, 0, 0) + field(6, 0, zigzag(-TOP_OFFSET))
    body += field(7, 0, advance)
    return field(3, 2, body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--font", default="/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
    ap.add_argument("--font-number", type=int, default=0, help="face index in a .ttc collection")
    ap.add_argument("--fontstack", default="wqy-microhei")
    ap.add_argument("--out", default=".venv/share/citytwin/glyphs")
    args = ap.parse_args()
    if not os.path.exists(args.font):
        sys.exit(f"make_glyphs: no font at {args.font} (apt-get install fonts-wqy-microhei)")
    font = TTCollection(args.font).fonts[args.font_number] if args.font.endswith(".ttc") else TTFont(args.font)
    scale = SIZE / font["head"].unitsPerEm
    cmap = font.getBestCmap()
    glyph_set = font.getGlyphSet()
    folder = os.path.join(args.out, args.fontstack)
    os.makedirs(folder, exist_ok=True)
    written = 0
    for r in range(256):
        start, end = r * 256, r * 256 + 255
        name = f"{start}-{end}"
        stack = field(1, 2, args.fontstack.encode()) + field(2, 2, name.encode())
        for cp in range(start, end + 1):
            if cp in cmap and not local_to_browser(cp):
                stack += glyph_message(cp, glyph_set, cmap[cp], scale)
                written += 1
        tmp = os.path.join(folder, name + ".pbf.tmp")
        with open(tmp, "wb") as f:
            f.write(field(1, 2, stack))
        os.replace(tmp, os.path.join(folder, name + ".pbf"))
    print(f"make_glyphs: {written} glyphs of {os.path.basename(args.font)} in 256 ranges at {folder}")


if __name__ == "__main__":
    main()
