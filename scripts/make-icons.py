"""Draws amicus's icon — three seats around a chair — as SVG and PNG from one set of shapes.

    python scripts/make-icons.py            rewrite src/amicus_mcp/mcp/icons/ (amicus.svg, amicus.png, amicus-512.png)
    python scripts/make-icons.py --out DIR  write them into DIR instead

The shapes are few and large (a rounded square, three seat discs, a chair disc), so the icon
stays legible at 16 px. The PNG is rasterized here with supersampling and written with zlib,
no imaging library; the output is byte-for-byte reproducible, and
tests/mcp/test_platform.py::test_the_icons_are_the_generators_own regenerates and compares.
"""

from __future__ import annotations

import math
import struct
import sys
import zlib
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "src" / "amicus_mcp" / "mcp" / "icons"
VIEW = 64  # the shapes' coordinate space (the SVG viewBox)
PNG_SIZES = {"amicus.png": 128, "amicus-512.png": 512}  # the server and bundle; the plugin listing (512–2048 px)
SAMPLES = 4  # per axis, per pixel
BACKGROUND = (0x24, 0x47, 0x6B)  # deep blue tile
SEAT = (0xFF, 0xFF, 0xFF)
CHAIR = (0xF2, 0xB1, 0x34)  # amber: the chair who did not sit on the bench
CORNER = 14.0
CENTRE = (32.0, 34.0)
SEAT_R, CHAIR_R, ORBIT = 9.0, 5.5, 17.0
SEATS = [(CENTRE[0] + ORBIT * math.cos(math.radians(a)), CENTRE[1] + ORBIT * math.sin(math.radians(a)))
         for a in (-90, 30, 150)]


def svg() -> str:
    discs = "".join(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{SEAT_R:g}" fill="#{"%02x%02x%02x" % SEAT}"/>'
                    for x, y in SEATS)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {VIEW} {VIEW}" width="{VIEW}" height="{VIEW}">'
            f'<title>amicus</title>'
            f'<rect width="{VIEW}" height="{VIEW}" rx="{CORNER:g}" fill="#{"%02x%02x%02x" % BACKGROUND}"/>'
            f'{discs}<circle cx="{CENTRE[0]:g}" cy="{CENTRE[1]:g}" r="{CHAIR_R:g}" fill="#{"%02x%02x%02x" % CHAIR}"/>'
            f'</svg>\n')


def _in_tile(x: float, y: float) -> bool:
    cx = min(max(x, CORNER), VIEW - CORNER)
    cy = min(max(y, CORNER), VIEW - CORNER)
    return 0 <= x <= VIEW and 0 <= y <= VIEW and (x - cx) ** 2 + (y - cy) ** 2 <= CORNER ** 2


def _colour_at(x: float, y: float) -> tuple[int, int, int] | None:
    """The topmost shape's colour at a point of the viewBox (None: outside the tile)."""
    if (x - CENTRE[0]) ** 2 + (y - CENTRE[1]) ** 2 <= CHAIR_R ** 2:
        return CHAIR
    if any((x - sx) ** 2 + (y - sy) ** 2 <= SEAT_R ** 2 for sx, sy in SEATS):
        return SEAT
    return BACKGROUND if _in_tile(x, y) else None


def _edge_distance(x: float, y: float) -> float:
    """How far a point is from the nearest shape edge (viewBox units)."""
    cx = min(max(x, CORNER), VIEW - CORNER)
    cy = min(max(y, CORNER), VIEW - CORNER)
    tile = abs(math.hypot(x - cx, y - cy) - CORNER) if (cx, cy) != (x, y) else min(x, y, VIEW - x, VIEW - y)
    discs = [abs(math.hypot(x - sx, y - sy) - SEAT_R) for sx, sy in SEATS]
    return min(tile, abs(math.hypot(x - CENTRE[0], y - CENTRE[1]) - CHAIR_R), *discs)


def png(size: int) -> bytes:
    scale = VIEW / size
    rows = []
    for py in range(size):
        row = bytearray([0])  # filter type 0 for every scanline
        for px in range(size):
            centre = ((px + 0.5) * scale, (py + 0.5) * scale)
            if _edge_distance(*centre) > scale:  # no edge crosses this pixel: one sample is exact
                colour = _colour_at(*centre)
                row += bytes((*colour, 255) if colour is not None else (0, 0, 0, 0))
                continue
            r = g = b = hits = 0
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    colour = _colour_at((px + (sx + 0.5) / SAMPLES) * scale, (py + (sy + 0.5) / SAMPLES) * scale)
                    if colour is not None:
                        r, g, b, hits = r + colour[0], g + colour[1], b + colour[2], hits + 1
            # straight (not premultiplied) alpha: the covered samples' mean colour, alpha by coverage
            row += bytes((r // hits, g // hits, b // hits, 255 * hits // SAMPLES ** 2) if hits else (0, 0, 0, 0))
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
            + chunk(b"IEND", b""))


def write(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "amicus.svg").write_text(svg(), encoding="utf-8")
    for name, size in PNG_SIZES.items():
        (directory / name).write_bytes(png(size))
    return [directory / "amicus.svg", *(directory / name for name in PNG_SIZES)]


def main(argv: list[str]) -> int:
    if argv and (len(argv) != 2 or argv[0] != "--out"):
        print("usage: python scripts/make-icons.py [--out DIR]", file=sys.stderr)
        return 2
    for path in write(Path(argv[1]) if argv else ICONS):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
