"""QGIS as a client of the live server, run with Debian's /usr/bin/python3 (python3-qgis is a
system package, not in the venv); prints JSON for test_qgis.py.

  qgis_client.py features BASE_URL ID...        OAPIF provider: every feature of each collection
  qgis_client.py render BASE_URL COLLECTIONS LON LAT
                                                vector-tile layer over the API's XYZ template,
                                                rendered 512x512 px around (lon, lat) at z14
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="qgis-runtime-"))  # mkdtemp: mode 0700

from qgis.core import (QgsApplication, QgsCoordinateReferenceSystem, QgsCoordinateTransform, QgsMapRendererSequentialJob,
                       QgsMapSettings, QgsPointXY, QgsProject, QgsRectangle, QgsVectorLayer, QgsVectorTileLayer)
from qgis.PyQt.QtCore import QSize
from qgis.PyQt.QtGui import QColor


def features(base: str, ids: list[str]) -> dict:
    out = {}
    for cid in ids:
        # QGIS's own page size (none given), as a user's QGIS asks.
        layer = QgsVectorLayer(f"url='{base}' typename='{cid}'", cid, "OAPIF")
        entry = {"valid": layer.isValid(), "crs": layer.crs().authid(), "fields": layer.fields().names()}
        if layer.isValid():
            read = list(layer.getFeatures())
            entry["ids"] = [str(f["id"]) for f in read]
            entry["invalid_geometries"] = sum(1 for f in read if f.hasGeometry() and not f.geometry().isGeosValid())
            entry["errors"] = layer.dataProvider().errors()
        out[cid] = entry
    return out


def render(base: str, collections: str, lon: float, lat: float) -> dict:
    query = f"%3Fcollections%3D{collections}" if collections else ""
    layer = QgsVectorTileLayer(f"type=xyz&url={base}/tiles/WebMercatorQuad/{{z}}/{{y}}/{{x}}{query}&zmin=14&zmax=14", "map")
    return draw(layer, lon, lat)


def draw(layer, lon: float, lat: float) -> dict:
    """`layer` rendered 256x256 px over 2.4 km of Web Mercator around (lon, lat) on white: the pixels drawn."""
    settings = QgsMapSettings()
    mercator = QgsCoordinateReferenceSystem("EPSG:3857")
    centre = QgsCoordinateTransform(QgsCoordinateReferenceSystem("EPSG:4326"), mercator,
                                    QgsProject.instance()).transform(QgsPointXY(lon, lat))
    settings.setLayers([layer])
    settings.setDestinationCrs(mercator)
    settings.setExtent(QgsRectangle(centre.x() - 1200, centre.y() - 1200, centre.x() + 1200, centre.y() + 1200))
    settings.setOutputSize(QSize(256, 256))
    white = QColor(255, 255, 255)
    settings.setBackgroundColor(white)
    job = QgsMapRendererSequentialJob(settings)
    job.start()
    job.waitForFinished()
    image = job.renderedImage()
    drawn = sum(1 for y in range(256) for x in range(256) if image.pixelColor(x, y) != white)
    return {"valid": layer.isValid(), "crs": layer.crs().authid(), "drawn": drawn,
            "errors": [e.message for e in job.errors()]}


if __name__ == "__main__":
    app = QgsApplication([], False)
    app.initQgis()
    mode, base = sys.argv[1], sys.argv[2].rstrip("/")
    if mode == "features":
        result = features(base, sys.argv[3:])
    else:
        result = render(base, sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))
    print(json.dumps(result))
    app.exitQgis()
