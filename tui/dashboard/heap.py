"""The dashboard's heap after its first draw (no Textual in here)."""

from __future__ import annotations

import gc

YOUNG = 20_000  # allocations between young collections (CPython's default: 700)


def settle_heap() -> None:
    """Put what the snapshot loaded (thousands of cards, notes, rows) out of the cyclic
    collector's sight: each full collection walked all of it, 0.2-0.5 s with the event
    loop stopped, the slowest moments of a busy dashboard. Once, after the first draw."""
    gc.collect()
    gc.freeze()
    # Drawing makes and drops thousands of small objects a frame; collecting the young
    # generation every 700 of them promoted live-for-a-frame caches, and the old
    # generation filled (and was walked, 50-100 ms) every few seconds.
    gc.set_threshold(YOUNG, 20, 20)
