"""The file-change watcher: a plain class with its own thread and a callback.

It watches each session's worktree and the main checkout through watchfiles (inotify on
Linux, debounced and coalesced in Rust) and reports `ChangeBatch`es: per source, either
uncommitted edits or a commit with the files it touched. The coordinator turns each batch
into alerts (`board.alerts.record_change`).

Commits are found by watching the common git dir for branch refs, packed-refs and HEAD
files; when one moves, every watched checkout's HEAD is re-read and the commits that are
new to it (and on no other watched HEAD, so a merge of another session's work is not
reported as this one's; a commit made here stays this checkout's even when another has
already taken it in) make one batch. Edits seen in the same burst that the new HEAD
explains are folded into that batch, so "edit then commit" is one change. A commit's
file not written in that burst and clean after it was committed as it stood: the batch
names it in `as_edited`, so an edit and its commit with the same content alert once,
whichever bursts they fell in.

A checkout, merge, reset or commit writes the files and the index first and moves the
branch last; under load the move can come bursts later, and the files would look like
uncommitted edits against the old HEAD. So a checkout's edits seen while its git is at
work (its index or index.lock written in that burst, or the lock held) are held back:
when its HEAD moves they are folded into that move like the edits of its burst; if it
does not move within GIT_GRACE_MS of git's last sign of work, those still dirty are
reported as edits (a `git add`, a `stash pop`, a conflicted merge). An edit is never held
unless its own checkout's git is at work; one that falls in such a burst waits with it.
Not covered: a git operation that writes files for more than GIT_HOLD_LIMIT_MS, or that
moves its branch more than GIT_GRACE_MS after it last wrote a file or the index, still
reports those files as uncommitted edits.

A commit made while the watch restarts is reported once the new watch is in place
(HEADs are compared then); one git could not read (it fails now and then under load) is
read again a second later, never skipped.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from watchfiles._rust_notify import RustNotify

from workers.coordinator.change_filter import ChangeBatch, Target, dirty, route, settled
from workers.coordinator.commit_reads import GitFailed, commit_batch, try_git
from workers.coordinator.held_edits import GIT_GRACE_MS, HeldEdits
from workers.worktree_head import git_dir_of

__all__ = ["ChangeBatch", "Watcher"]

log = logging.getLogger(__name__)

DEBOUNCE_MS = 200  # most time spent grouping one burst
STEP_MS = 50  # a burst ends after this long without new events
RETRY_MS = 1000  # how soon a HEAD move git could not read is read again


@dataclass(frozen=True)
class _Generation:
    """What one watch (between restarts) was started with."""

    targets: tuple[Target, ...]
    roots: tuple[Path, ...]
    git_common_dir: Path
    version: int  # which set_targets call it reflects


class _Either:
    """A stop flag for RustNotify.watch: set when either event is set."""

    def __init__(self, *events: threading.Event) -> None:
        self._events = events

    def is_set(self) -> bool:
        return any(event.is_set() for event in self._events)


def _git_dir(root: Path) -> Path | None:
    """The checkout's own git dir (where its index is), or None if it cannot be read.
    From its files, not `git rev-parse`: a watch (re)starts with every session's."""
    try:
        return git_dir_of(root).resolve()
    except OSError:
        return None


class Watcher:
    """Watch checkouts for changes; call `on_change` (on the watcher's thread) per batch.

    `set_targets({"main": repo_root, "a": worktree_of_a, ...})` says what to watch; the
    watch restarts cleanly whenever the set changes (a worktree added or removed).
    `known_head(source)` names the last HEAD already recorded for a checkout: a target
    first seen with a newer HEAD (a commit made before its watch began) reports the
    commits since then instead of taking them as its starting point.
    """

    def __init__(self, repo_root: Path, on_change: Callable[[ChangeBatch], None], *,
                 known_head: Callable[[str], str | None] = lambda source: None,
                 debounce_ms: int = DEBOUNCE_MS, step_ms: int = STEP_MS,
                 git_grace_ms: int = GIT_GRACE_MS) -> None:
        self.repo_root = Path(repo_root).resolve()
        self.on_change = on_change
        self.known_head = known_head
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self._targets: dict[str, Path] = {}
        self._version = 0  # bumped by every set_targets that changes something
        self._heads: dict[str, str] = {}  # source -> HEAD sha last reported
        self._unread_heads = False  # git failed reading a HEAD move: retried while set
        self.held = HeldEdits(git_grace_ms)  # edits waiting for their git's HEAD move
        self.bursts = 0  # bursts that wrote checkout files, each handled whole (missed_edits)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._restart = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        common = try_git(self.repo_root, "rev-parse", "--path-format=absolute",
                         "--git-common-dir")
        self.git_common_dir = Path(common).resolve() if common else self.repo_root / ".git"

    # -- control -------------------------------------------------------------------------

    def start(self) -> None:
        """Start the watcher thread (once)."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="bullpen-watcher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop watching and wait for the thread to finish."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def set_targets(self, targets: Mapping[str, Path]) -> None:
        """Watch exactly these checkouts (source name -> directory); restart if they changed."""
        resolved = {name: Path(path).resolve() for name, path in targets.items()}
        with self._lock:
            if resolved == self._targets:
                return
            self._targets = resolved
            self._version += 1
            self._ready.clear()
        self._restart.set()

    def is_ready(self) -> bool:
        """Whether the current targets are being watched."""
        return self._ready.is_set()

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """Block until the current targets are being watched (tests and benchmarks)."""
        return self._ready.wait(timeout)

    @property
    def holding(self) -> bool:
        """Whether edits seen are held for a git operation's HEAD move, not reported yet
        (a mark that every write was handled must wait)."""
        return bool(self.held)

    # -- the thread ----------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            self._restart.clear()
            generation = self._begin()
            if not generation.roots:
                self._mark_ready(generation)
                while not (self._stop.wait(0.05) or self._restart.is_set()):
                    pass  # nothing to watch until set_targets names something
                continue
            try:
                self._watch(generation)
            except Exception:  # a vanished root, a full inotify table: log, retry shortly
                log.exception("watcher failed; restarting")
                self._stop.wait(0.5)

    def _begin(self) -> _Generation:
        with self._lock:
            current, version = dict(self._targets), self._version
        targets = tuple(Target(name, root, _git_dir(root))
                        for name, root in sorted(current.items()) if root.is_dir())
        wanted = sorted({t.root for t in targets} | ({self.git_common_dir} if targets
                                                         else set()),
                        key=lambda p: len(p.parts))
        roots: list[Path] = []
        for root in wanted:  # inotify watches are per directory: never nest two roots
            if not any(root.is_relative_to(kept) for kept in roots):
                roots.append(root)
        generation = _Generation(targets, tuple(roots), self.git_common_dir, version)
        for name in list(self._heads):
            if name not in current:
                del self._heads[name]
        self.held.keep_only(current)
        return generation

    def _watch(self, generation: _Generation) -> None:
        with RustNotify([str(root) for root in generation.roots], False, False, 300, True,
                        True) as notify:
            # Caught up only now the watch is in place: a commit made while it was being
            # set up would otherwise wait for the next restart.
            self._look_at_heads(generation)
            self._mark_ready(generation)
            stop = _Either(self._stop, self._restart)
            while True:
                wait_ms = self.held.wait_ms(time.monotonic(), RETRY_MS)
                raw = notify.watch(self.debounce_ms, self.step_ms, wait_ms, stop)
                if raw == "stop":
                    return
                if isinstance(raw, set) and raw:
                    self._handle(generation, raw)
                elif self._unread_heads:  # git failed on a HEAD move: look again
                    self._look_at_heads(generation)
                self._release_due(generation)

    def _mark_ready(self, generation: _Generation) -> None:
        """Ready only if no newer set_targets came in while this watch was being set up."""
        with self._lock:
            if generation.version == self._version:
                self._ready.set()

    def _handle(self, generation: _Generation, raw: set[tuple[int, str]]) -> None:
        routed = route(raw, generation.targets, generation.git_common_dir)
        at_work = self.held.at_work(generation.targets, routed.index_written)
        edits: dict[str, list[str]] = {}
        written: dict[str, set[str]] = {}
        for target in generation.targets:
            changes = routed.files.get(target.source)
            if not changes or not self._alive(target):
                continue
            paths = settled(changes, target.root)
            written[target.source] = set(paths)
            changed = dirty(target.root, paths)
            edits[target.source] = [path for path in paths if path in changed]
        moved = self._report_commits(generation, edits, written) if routed.refs_moved \
            else set()
        now = time.monotonic()
        for source in sorted(at_work):
            if source not in moved or self.held.locked(source):  # its HEAD move is to come
                self.held.hold(source, edits.pop(source, []), now)
        self._emit_edits(edits)
        if any(written.values()):
            self.bursts += 1

    def _release_due(self, generation: _Generation) -> None:
        """Report the held edits whose grace passed with no HEAD move: those still dirty."""
        due = self.held.due(time.monotonic())
        if not due:  # the usual case, after every burst and each idle second
            return
        targets = {target.source: target for target in generation.targets}
        for source, paths in due.items():
            target = targets.get(source)
            if target is not None and self._alive(target):
                still = dirty(target.root, paths)
                if still:
                    self._emit(ChangeBatch(source, tuple(sorted(still))))

    def _emit_edits(self, edits: Mapping[str, list[str]]) -> None:
        """Report each source's edits; those it held are reported now, not again."""
        for source, paths in sorted(edits.items()):
            if not paths:
                continue
            self.held.told(source, paths)
            self._emit(ChangeBatch(source, tuple(paths)))

    def _look_at_heads(self, generation: _Generation) -> None:
        """Report every HEAD move (a restart's catch-up, a retry after git failed), then
        the held edits a move did not explain."""
        edits: dict[str, list[str]] = {}
        self._report_commits(generation, edits)
        self._emit_edits(edits)

    def _alive(self, target: Target) -> bool:
        """A worktree being removed is no change by its session."""
        return target.root.is_dir() and (target.root / ".git").exists()

    def _report_commits(self, generation: _Generation, edits: dict[str, list[str]],
                        written: Mapping[str, set[str]] | None = None) -> set[str]:
        """Report each target's HEAD move; drop from `edits` the files the move explains,
        and add to them its held edits the move does not. `written`: the files each
        target wrote in this burst (none at a restart's catch-up). Returns the sources
        whose HEAD moved."""
        moved: set[str] = set()
        alive = [t for t in generation.targets if self._alive(t)]
        heads = {t.source: try_git(t.root, "rev-parse", "HEAD") for t in alive}
        self._unread_heads = any(sha is None for sha in heads.values())
        for target in generation.targets:
            new, old = heads.get(target.source), self._heads.get(target.source)
            if new is None:
                continue
            if old is None:
                old = self._recorded_head(target.source)
            if old is None or old == new:
                self._heads[target.source] = new
                continue
            others = [sha for name, sha in heads.items() if sha and name != target.source]
            held_paths = self.held.of(target.source)
            # Held edits were written with this move (unreported): as if in this burst.
            this_burst = (written or {}).get(target.source, set()) | held_paths
            try:
                batch, explained = commit_batch(target, old, new, others, this_burst)
            except GitFailed as failed:  # under load git can fail: keep `old`, retry
                log.warning("reading %s's commits failed (%s); looking again shortly",
                            target.source, failed)
                self._unread_heads = True
                continue
            self._heads[target.source] = new
            moved.add(target.source)
            self.held.release(target.source)
            if target.source in edits or held_paths:
                edits[target.source] = sorted(
                    {*edits.get(target.source, ()), *held_paths} - explained)
            if batch is not None:
                self._emit(batch)
        return moved

    def _recorded_head(self, source: str) -> str | None:
        try:
            return self.known_head(source)
        except Exception:  # the store unreadable now: start from HEAD, as before
            log.exception("known head of %s unreadable", source)
            return None

    def _emit(self, batch: ChangeBatch) -> None:
        try:
            self.on_change(batch)
        except Exception:  # the callback's failure must not stop the watch
            log.exception("on_change failed for %s", batch)
