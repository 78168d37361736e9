"""Printing for the command line: JSON documents, aligned tables, one-line errors."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call a few ms
if TYPE_CHECKING:
    from typing import NoReturn


def fail(message: str, status: int) -> NoReturn:
    """Print one line on stderr and exit with `status`."""
    print(message.splitlines()[0] if message else "bullpen: failed", file=sys.stderr)
    raise SystemExit(status)


def print_json(document: object) -> None:
    json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def print_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Columns padded to their widest cell; the last column is not padded."""
    cells = [[str(cell) if cell is not None else "-" for cell in row] for row in rows]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers)]
    for row in [list(headers), *cells]:
        line = "  ".join(cell.ljust(widths[i]) if i < len(row) - 1 else cell
                         for i, cell in enumerate(row))
        print(line.rstrip())


def one_line(text: str, width: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
