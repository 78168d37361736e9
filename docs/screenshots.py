"""Make the pictures docs/dashboard.md opens with, from the dashboard's own screenshots.

The SVGs are the snapshot tests' (tests/ui/test_dashboard_snapshots.py: fake, fixed data,
drawn by Textual's own SVG export, the same as the palette's *Screenshot*); this turns
the ones the docs show into PNGs with librsvg's rsvg-convert (Debian: apt-get install
librsvg2-bin). cairosvg was tried and left: it ignores the SVG's textLength, so box
borders ran past their boxes. After a change to how the dashboard looks:

    ./dev test tests/ui/test_dashboard_snapshots.py --snapshot-update
    .venv/bin/python docs/screenshots.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "tests" / "ui" / "__snapshots__" / "test_dashboard_snapshots"
IMAGES = ROOT / "docs" / "images"
PICTURES = {  # the PNG in docs/images: the snapshot it is made from
    "dashboard-200x50.png": "test_dashboard[200x50].svg",
    "dashboard-80x24.png": "test_dashboard[80x24].svg",
    "dashboard-demo-120x40.png": "test_demo[120x40].svg",
    "session-detail.png": "test_session_detail.svg",
    "refused-form.png": "test_refused_form.svg",
}
SCALE = 0.75  # Textual draws a column 12.2 wide: 200 columns make an 1,830-pixel picture


def main() -> int:
    converter = shutil.which("rsvg-convert")
    if converter is None:
        print("screenshots: rsvg-convert not found; apt-get install librsvg2-bin",
              file=sys.stderr)
        return 1
    IMAGES.mkdir(exist_ok=True)
    for png, svg in PICTURES.items():
        source = SNAPSHOTS / svg
        if not source.exists():
            print(f"no snapshot {source}; run the snapshot tests first", file=sys.stderr)
            return 1
        subprocess.run([converter, "--zoom", str(SCALE), "--output", str(IMAGES / png),
                        str(source)], check=True)
        print(f"docs/images/{png} <- {svg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
