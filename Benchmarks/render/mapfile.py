"""A MapServer mapfile drawing the same layers as CityTwin's web map style (MapLibre v8), from the
same SpatiaLite store: every style layer becomes a MapServer LAYER reading its collection's table
(`f_<id>`, current rows) through OGR with native SQLite SQL, its paint and layout expressions
translated to SQL columns bound to the STYLE/LABEL (COLOR [c0], WIDTH [c1] …) and its filter to the
WHERE clause, zoom-dependent values evaluated at the tiles' zoom. What the translation reads: get,
coalesce, to-string, match, interpolate/step over zoom (linear, exponential), *, max, ==, !=, all, any.

    python3 mapfile.py STYLE.json STORE.sqlite FONT.ttc ZOOM OUT.map
"""
import json
import sys

ZOOM = 13.0


class Expr:
    """A translated expression: a constant (Python value) or SQL text."""

    def __init__(self, const=None, sql=None):
        self.const, self.sql = const, sql

    @property
    def is_const(self):
        return self.sql is None

    def text(self):
        if not self.is_const:
            return self.sql
        v = self.const
        if v is None:
            return "NULL"
        if isinstance(v, bool):
            return "1" if v else "0"
        if isinstance(v, (int, float)):
            return repr(float(v))
        return "'" + str(v).replace("'", "''") + "'"


def prop(name):
    return f"json_extract(props, '$.{name}')"


def tr(e):
    if not isinstance(e, list) or not e or not isinstance(e[0], str):
        return Expr(const=e)  # a number, a string, or an array of numbers (a dash pattern)
    op, args = e[0], e[1:]
    if op == "get":
        return Expr(sql=prop(args[0]))
    if op == "zoom":
        return Expr(const=ZOOM)
    if op == "literal":
        return Expr(const=args[0])
    if op == "coalesce":
        parts = [tr(a) for a in args]
        if parts[0].is_const and parts[0].const is not None:
            return parts[0]
        return Expr(sql="coalesce(" + ", ".join(p.text() for p in parts) + ")")
    if op == "to-string":
        inner = args[0]
        if isinstance(inner, list) and inner and inner[0] == "get":
            p = inner[1]
            return Expr(sql=f"CASE json_type(props, '$.{p}') WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST({prop(p)} AS TEXT) END")
        x = tr(inner)
        return Expr(const=str(x.const)) if x.is_const else Expr(sql=f"CAST({x.sql} AS TEXT)")
    if op == "match":
        value, rest = tr(args[0]), args[1:]
        whens = []
        for i in range(0, len(rest) - 1, 2):
            labels = rest[i] if isinstance(rest[i], list) else [rest[i]]
            for label in labels:
                whens.append(f"WHEN {Expr(const=label).text()} THEN {tr(rest[i + 1]).text()}")
        return Expr(sql=f"CASE {value.text()} {' '.join(whens)} ELSE {tr(rest[-1]).text()} END")
    if op == "interpolate":
        kind, value, stops = args[0], tr(args[1]), args[2:]
        if not value.is_const:
            raise ValueError(f"interpolate over a property: {e}")
        z = value.const
        pairs = [(stops[i], tr(stops[i + 1])) for i in range(0, len(stops), 2)]
        if z <= pairs[0][0]:
            return pairs[0][1]
        if z >= pairs[-1][0]:
            return pairs[-1][1]
        for (z0, a), (z1, b) in zip(pairs, pairs[1:]):
            if z0 <= z <= z1:
                base = kind[1] if kind[0] == "exponential" else 1
                t = (z - z0) / (z1 - z0) if base == 1 else (base ** (z - z0) - 1) / (base ** (z1 - z0) - 1)
                if a.is_const and b.is_const:
                    return Expr(const=a.const + (b.const - a.const) * t)
                return Expr(sql=f"({a.text()} + ({b.text()} - {a.text()}) * {t!r})")
    if op == "step":
        value, default, stops = tr(args[0]), tr(args[1]), args[2:]
        if value.is_const:
            out = default
            for i in range(0, len(stops), 2):
                if value.const >= stops[i]:
                    out = tr(stops[i + 1])
            return out
        whens = " ".join(f"WHEN {value.text()} >= {stops[i]!r} THEN {tr(stops[i + 1]).text()}" for i in reversed(range(0, len(stops), 2)))
        return Expr(sql=f"CASE {whens} ELSE {default.text()} END")
    if op in ("*", "+"):
        parts = [tr(a) for a in args]
        if all(p.is_const for p in parts):
            out = 1.0 if op == "*" else 0.0
            for p in parts:
                out = out * p.const if op == "*" else out + p.const
            return Expr(const=out)
        return Expr(sql="(" + f" {op} ".join(p.text() for p in parts) + ")")
    if op in ("max", "min"):
        parts = [tr(a) for a in args]
        if all(p.is_const for p in parts):
            return Expr(const=(max if op == "max" else min)(p.const for p in parts))
        return Expr(sql=f"{op}(" + ", ".join(p.text() for p in parts) + ")")
    if op in ("==", "!="):
        a, b = tr(args[0]), tr(args[1])
        return Expr(sql=f"({a.text()} {'=' if op == '==' else '<>'} {b.text()})")
    if op in ("all", "any"):
        return Expr(sql="(" + (" AND " if op == "all" else " OR ").join(tr(a).text() for a in args) + ")")
    if op == "!":
        return Expr(sql=f"(NOT {tr(args[0]).text()})")
    if op == "has":
        return Expr(sql=f"(json_type(props, '$.{args[0]}') IS NOT NULL)")
    raise ValueError(f"expression not translated: {op}")


def rgb(hex_colour):
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return f"{int(h[0:2], 16)} {int(h[2:4], 16)} {int(h[4:6], 16)}"


class Layer:
    """One style layer as a MapServer LAYER: constant values written in place, the rest as SQL columns."""

    def __init__(self, style_layer, store, geometry):
        self.s, self.store, self.geometry = style_layer, store, geometry
        self.columns = []

    def value(self, name, default=None):
        raw = self.s.get("paint", {}).get(name, self.s.get("layout", {}).get(name, default))
        return None if raw is None else tr(raw)

    def bind(self, expr, colour=False):
        """A constant in mapfile syntax, or `[cN]` bound to a new SQL column."""
        if expr.is_const:
            return rgb(expr.const) if colour else repr(float(expr.const))
        self.columns.append(expr.sql)
        return f"[c{len(self.columns) - 1}]"

    def mapfile(self):
        kind, s = self.s["type"], self.s
        styles, label = [], None
        if kind == "fill":
            opacity = self.value("fill-opacity", 1).const
            styles.append(f"STYLE COLOR {self.bind(self.value('fill-color', '#000000'), True)} OPACITY {round(opacity * 100)} END")
            outline = self.value("fill-outline-color")
            if outline is not None:
                styles.append(f"STYLE OUTLINECOLOR {self.bind(outline, True)} WIDTH 1 OPACITY {round(opacity * 100)} END")
            mstype = "POLYGON"
        elif kind == "line":
            width = self.value("line-width", 1)
            cap = (self.value("line-cap") or Expr(const="butt")).const
            join = (self.value("line-join") or Expr(const="miter")).const
            dash = self.value("line-dasharray")
            pattern = ""
            if dash is not None and width.is_const:
                pattern = " PATTERN " + " ".join(repr(d * width.const) for d in dash.const) + " END"
            # MAXWIDTH: MapServer caps widths at 32 px unless told (a river drawn at its width in metres is wider).
            styles.append(f"STYLE COLOR {self.bind(self.value('line-color', '#000000'), True)} WIDTH {self.bind(width)} MAXWIDTH 512 "
                          f"LINECAP {cap} LINEJOIN {join}{pattern} END")
            mstype = "LINE"
        elif kind == "circle":
            radius = self.value("circle-radius", 5)
            stroke = self.value("circle-stroke-width", 0)
            if not (stroke.is_const and stroke.const == 0):
                outer = Expr(const=2 * (radius.const + stroke.const)) if radius.is_const and stroke.is_const else \
                    Expr(sql=f"(2 * ({radius.text()} + {stroke.text()}))")
                styles.append(f"STYLE SYMBOL 'circle' SIZE {self.bind(outer)} COLOR {self.bind(self.value('circle-stroke-color', '#000000'), True)} END")
            diameter = Expr(const=2 * radius.const) if radius.is_const else Expr(sql=f"(2 * {radius.text()})")
            styles.append(f"STYLE SYMBOL 'circle' SIZE {self.bind(diameter)} COLOR {self.bind(self.value('circle-color', '#000000'), True)} END")
            mstype = "POINT"
        elif kind == "symbol":
            text = self.bind(self.value("text-field", ""))
            size = self.value("text-size", 16).const
            halo = self.value("text-halo-color")
            halo_width = self.value("text-halo-width", 0).const
            along = (self.value("symbol-placement") or Expr(const="point")).const == "line"
            outline = f" OUTLINECOLOR {self.bind(halo, True)} OUTLINEWIDTH {max(1, round(halo_width))}" if halo is not None and halo_width > 0 else ""
            placement = " ANGLE FOLLOW" if along else " POSITION CC"
            # MapServer's label SIZE is in points of its 96-dpi text (a 13 px MapLibre label is SIZE 9.75).
            label = (f"LABEL TEXT '{text}' TYPE TRUETYPE FONT 'wqy' SIZE {size * 0.75!r} COLOR {self.bind(self.value('text-color', '#000000'), True)}"
                     f"{outline}{placement} PARTIALS FALSE END")
            mstype = "LINE" if along else self.geometry
        else:
            return ""
        where = "valid_to IS NULL"
        if "filter" in s:
            where += " AND " + tr(s["filter"]).text()
        if kind == "symbol":
            where += f" AND coalesce({self.columns[0]}, '') <> ''"
        columns = "".join(f", {c} AS c{i}" for i, c in enumerate(self.columns))
        data = f"SELECT geom{columns} FROM f_{s['source-layer']} WHERE {where}"
        body = "\n    ".join(styles + ([label] if label else []))
        return f"""  LAYER
    NAME "{s['id']}"
    GROUP "{s['source-layer']}"
    TYPE {mstype}
    STATUS OFF
    CONNECTIONTYPE OGR
    CONNECTION "{self.store}"
    PROCESSING "CLOSE_CONNECTION=DEFER"
    DATA "{data.replace('"', "'")}"
    PROJECTION "init=epsg:4490" END
    CLASS
    {body}
    END
  END
"""


def main(style_path, store, font, zoom, out):
    global ZOOM
    ZOOM = float(zoom)
    style = json.load(open(style_path))
    layers = [l for l in style["layers"] if l.get("source-layer") and l["type"] in ("fill", "line", "circle", "symbol")
              and l.get("minzoom", 0) <= ZOOM < l.get("maxzoom", 99)]
    # A collection's geometry as its style draws it: fills are areas, circles points, else lines.
    geometry = {}
    for l in layers:
        g = {"fill": "POLYGON", "circle": "POINT", "line": "LINE"}.get(l["type"])
        if g and l["source-layer"] not in geometry:
            geometry[l["source-layer"]] = g
    fontset = out + ".fonts"
    with open(fontset, "w") as f:
        f.write(f"wqy {font}\n")
    parts = ["MAP", '  NAME "citytwin-style"', "  SIZE 256 256", "  UNITS METERS", "  RESOLUTION 72", "  DEFRESOLUTION 72",
             '  PROJECTION "init=epsg:3857" END', f'  FONTSET "{fontset}"', '  IMAGETYPE "png"',
             '  OUTPUTFORMAT NAME "png" DRIVER "AGG/PNG" MIMETYPE "image/png" IMAGEMODE RGBA TRANSPARENT ON EXTENSION "png" END',
             "  SYMBOL NAME 'circle' TYPE ELLIPSE FILLED TRUE POINTS 1 1 END END"]
    for l in layers:
        parts.append(Layer(l, store, geometry.get(l["source-layer"], "POINT")).mapfile())
    parts.append("END\n")
    with open(out, "w") as f:
        f.write("\n".join(parts))
    print(json.dumps({"layers": len(layers), "collections": sorted(geometry)}))


if __name__ == "__main__":
    main(*sys.argv[1:6])
