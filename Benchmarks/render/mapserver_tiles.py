"""MapServer's side of the render benchmark, in-process through mapscript (Debian python3-mapscript):
the mapfiles (one per zoom: the style's zoom-dependent values evaluated at that zoom) are loaded
once, then each request line on stdin, `collection z x y`, draws that collection's layers on the
Web Mercator tile with zoom z's mapfile and encodes the PNG; one JSON line per tile answers with the
seconds it took and the PNG's size. `--write DIR` keeps the tiles for looking at.

    /usr/bin/python3 mapserver_tiles.py Z=STYLE.map [Z=STYLE.map …] [--write DIR] < tiles
"""
import json
import math
import sys
import time

import mapscript

HALF = 20037508.342789244


def bounds(z, x, y):
    size = 2 * HALF / 2 ** z
    return -HALF + x * size, HALF - (y + 1) * size, -HALF + (x + 1) * size, HALF - y * size


def main():
    args = sys.argv[1:]
    write = None
    if "--write" in args:
        i = args.index("--write")
        write = args[i + 1]
        del args[i:i + 2]
    maps = {}
    for arg in args:
        z, _, path = arg.partition("=")
        m = mapscript.mapObj(path)
        groups = {}
        for i in range(m.numlayers):
            layer = m.getLayer(i)
            groups.setdefault(layer.group, []).append(layer)
        maps[int(z)] = (m, groups)
    for line in sys.stdin:
        collection, z, x, y = line.split()
        z, x, y = int(z), int(x), int(y)
        t0 = time.perf_counter()
        # z13 (the warm-up) draws with the lowest zoom's mapfile.
        m, groups = maps.get(z) or maps[min(maps)]
        for name, layers in groups.items():
            for layer in layers:
                layer.status = mapscript.MS_ON if name == collection else mapscript.MS_OFF
        m.setExtent(*bounds(z, x, y))
        image = m.draw()
        png = image.getBytes()
        seconds = time.perf_counter() - t0
        if write:
            with open(f"{write}/mapserver-{collection}-{z}-{x}-{y}.png", "wb") as f:
                f.write(png)
        print(json.dumps({"seconds": seconds, "bytes": len(png)}), flush=True)


if __name__ == "__main__":
    main()
