"""The figures a bench run measured, for the one table `python -m bench` prints at its end.

Each bench prints its own lines as it goes (the detail: spreads, percentiles) and records
its headline figures here: what was measured, its primitive (what the same work costs
done the bare way, in the same run), the ratio, the target and whether it was met.
"""

from __future__ import annotations

from dataclasses import dataclass

# Which bench is running: `python -m bench` sets it before each one.
current_bench = [""]


@dataclass(frozen=True)
class Figure:
    """One headline figure of a bench (`ratio` and `met` are None where none applies)."""

    bench: str
    what: str
    value: str
    primitive: str
    ratio: float | None
    target: str
    met: bool | None


FIGURES: list[Figure] = []


def record(what: str, value: str, primitive: str = "", ratio: float | None = None,
           target: str = "", met: bool | None = None) -> None:
    """Add a figure of the running bench to the run's table."""
    FIGURES.append(Figure(current_bench[0], what, value, primitive, ratio, target, met))


def failed(bench: str, reason: str) -> None:
    """A bench that ended without its figures: a row saying so."""
    FIGURES.append(Figure(bench, "FAILED", reason[:60], "", None, "", False))


def table(figures: list[Figure]) -> str:
    """The figures as one aligned table, a row each."""
    header = ("bench", "figure", "value", "primitive", "ratio", "target", "")
    rows = [header] + [
        (f.bench, f.what, f.value, f.primitive, "" if f.ratio is None else f"{f.ratio:.2f}x",
         f.target, {True: "met", False: "MISSED", None: ""}[f.met]) for f in figures]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths,
                                                                           strict=True)).rstrip()
                     for row in rows)
