"""QGIS adding the WMS and WMTS layers of the live server (its "wms" raster provider, as a user's
Add WMS/WMTS Layer dialog makes them), run with Debian's /usr/bin/python3 (python3-qgis); prints JSON
for test_qgis_ows.py.

  qgis_ows_client.py wms|wmts BASE_URL LAYER LON LAT
      the layer rendered 256x256 px over 2.4 km of Web Mercator around (lon, lat)
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="qgis-runtime-"))  # mkdtemp: mode 0700

from qgis.core import QgsApplication, QgsRasterLayer

from qgis_client import draw  # the same map settings and pixel count as the vector-tile check


def render(kind: str, base: str, name: str, lon: float, lat: float) -> dict:
    if kind == "wms":
        source = f"contextualWMSLegend=0&crs=EPSG:3857&dpiMode=7&format=image/png&layers={name}&styles=&url={base}/wms"
    else:
        source = (f"contextualWMSLegend=0&crs=EPSG:3857&dpiMode=7&format=image/png&layers={name}&styles=default"
                  f"&tileMatrixSet=WebMercatorQuad&url={base}/wmts/1.0.0/WMTSCapabilities.xml")
    layer = QgsRasterLayer(source, name, "wms")
    result = draw(layer, lon, lat)
    result["error"] = layer.error().summary() if not layer.isValid() else ""
    return result


if __name__ == "__main__":
    app = QgsApplication([], False)
    app.initQgis()
    result = render(sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))
    print(json.dumps(result))
    app.exitQgis()
