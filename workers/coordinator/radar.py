"""The conflict radar: after each recorded change, predict the merges it affects.

The coordinator calls `changed(source)` for every recorded change (a session's edit or
commit, or the main checkout's); the radar's own thread coalesces them and scans. A
session's work is one commit (`worktrees.predict.snapshot`: uncommitted edits count),
with the paths it changed since it left the base branch. Only pairs whose changed paths
overlap are predicted (`git merge-tree`), so the cost follows the overlap, not the number
of sessions; each session is also predicted against the base branch when the base changed
a path it changed too. Nothing touches a worktree or an index.

A predicted conflict is stored (board.conflicts) and told to each session once, as a
`conflict` note naming the other side, the files, the lines and what to do; when it
clears, each is told once more. Every second the branch heads are compared too, so a
commit no change event announced (a sync, a landing by update-ref) is still seen, and a
dirty session in a conflict is looked at again (undoing an edit records no change).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from board import conflicts, pings, sessions
from board.conflicts import ConflictFile
from board.connection import Connection
from board.errors import BullpenError
from board.models import Session
from board.vocabulary import MAIN_CHECKOUT, DesiredState, EventKind, NoteKind
from workers.coordinator.radar_notes import cleared_note, found_note
from worktrees.gitcmd import run_git
from worktrees.naming import branch_for
from worktrees.predict import (
    MergePrediction,
    changed_paths,
    commits_touching,
    merge_base,
    predict_merge,
    snapshot,
)

log = logging.getLogger(__name__)

RESCAN_EVERY = 1.0  # seconds between looks at the branch heads when nothing was recorded
UNCOMMITTED = "uncommitted"
# What can change a session's work, the base, or who is live.
HEARD = {EventKind.CHANGE_RECORDED, EventKind.SESSION_LANDED, EventKind.SESSION_UPDATED,
         EventKind.SESSION_REGISTERED}
_CACHE = 4096  # predictions kept, by the pair of commits


@dataclass(frozen=True)
class View:
    """One session's work as the radar last saw it."""

    commit: str  # HEAD, or a snapshot commit holding its uncommitted edits
    head: str
    dirty: bool
    fork: str | None  # where it left the base branch
    changed: frozenset[str]  # paths changed since then


class Radar:
    """Predicts conflicts between live sessions and with the base; see the module doc."""

    def __init__(self, root: Path, connect_db: Callable[[], Connection],
                 mine: Callable[[list[Session]], list[Session]] = lambda known: known,
                 bullpen: str | None = None) -> None:
        from workers.coordinator.pings import _bullpen

        self.root = Path(root)
        self._connect = connect_db
        self._mine = mine
        self._bullpen = bullpen or _bullpen()  # by its path: an agent's PATH may lack it
        self._views: dict[str, View] = {}
        self._base: str | None = None  # the base branch's commit at the last scan
        self._base_name: str | None = None
        self._predictions: dict[tuple[str, str], MergePrediction] = {}
        self._pending: set[str] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.scans = 0  # for tests and the bench

    # -- the thread ----------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="bullpen-radar", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def heard(self, event) -> None:  # noqa: ANN001 - a board.models.Event
        """An event from the coordinator's tail: scan for what it may have changed."""
        if event.kind in HEARD:
            self.changed(event.session)

    def changed(self, source: str | None) -> None:
        """A change was recorded for `source` (a session, or the main checkout)."""
        with self._lock:
            self._pending.add(source or MAIN_CHECKOUT)
        self._wake.set()

    def _run(self) -> None:
        conn = self._connect()
        try:
            while not self._stop.is_set():
                self._wake.wait(RESCAN_EVERY)
                self._wake.clear()
                if self._stop.is_set():
                    break
                with self._lock:
                    pending, self._pending = self._pending, set()
                try:
                    self.scan(conn, pending or self._reverted_maybe(conn))
                except Exception as error:  # a store fault or git trouble: next round retries
                    log.error("conflict radar: %s", error)
                    with self._lock:
                        self._pending |= pending
        finally:
            conn.close()

    def _reverted_maybe(self, conn: Connection) -> set[str]:
        """Dirty sessions in an open conflict: an edit undone (back to HEAD) records no
        change, so these are looked at again each round to see a conflict clear."""
        sides = {side for c in conflicts.open_conflicts(conn) for side in (c.a, c.b)}
        return {name for name, view in self._views.items() if view.dirty and name in sides}

    # -- one scan ------------------------------------------------------------------------

    def scan(self, conn: Connection, changed: set[str]) -> None:
        """Re-read the sessions in `changed` (and any whose branch head moved), then
        predict every pair and base merge that can have changed."""
        self.scans += 1
        live = {s.name: s for s in self._mine(sessions.all_sessions(conn)) if _live(s)}
        heads = self._heads()
        base_name, base = self._base_now(heads)
        base_moved = (base_name, base) != (self._base_name, self._base)
        self._base_name, self._base = base_name, base
        for name in set(self._views) - set(live):
            del self._views[name]
        fresh: set[str] = set()
        for name, session in live.items():
            view = self._views.get(name)
            branch = session.branch or branch_for(name)
            if view is None or name in changed or heads.get(branch) != view.head:
                fresh |= self._look(name, session)
            elif base_moved:
                self._views[name] = self._rebased(view)
        self._clear_gone(conn, live)
        for one in sorted(fresh):
            for other in sorted(set(self._views) - {one}):
                if other not in fresh or one < other:  # each pair once
                    self._check_pair(conn, one, other)
        for name in sorted(set(self._views) if base_moved else fresh & set(self._views)):
            self._check_base(conn, name)

    def _look(self, name: str, session: Session) -> set[str]:
        """Refresh one session's view; the names whose view changed."""
        if not session.worktree:
            return set()
        try:
            shot = snapshot(session.worktree)
        except BullpenError as error:  # a worktree mid-removal, or no commit yet
            log.info("radar: %s skipped: %s", name, error)
            return set()
        old = self._views.get(name)
        if old is not None and old.commit == shot.commit:
            return set()
        fork = merge_base(self.root, shot.commit, self._base) if self._base else None
        self._views[name] = View(shot.commit, shot.head, shot.dirty, fork,
                                 changed_paths(self.root, fork, shot.commit))
        return {name}

    def _rebased(self, view: View) -> View:
        fork = merge_base(self.root, view.commit, self._base) if self._base else None
        if fork == view.fork:
            return view
        return View(view.commit, view.head, view.dirty, fork,
                    changed_paths(self.root, fork, view.commit))

    def _heads(self) -> dict[str, str]:
        output = run_git(self.root, "for-each-ref", "--format=%(refname:short) %(objectname)",
                         "refs/heads/").stdout
        return dict(line.split(" ", 1) for line in output.splitlines() if " " in line)

    def _base_now(self, heads: dict[str, str]) -> tuple[str | None, str | None]:
        name = run_git(self.root, "symbolic-ref", "--quiet", "--short", "HEAD",
                       ok=(0, 1)).stdout.strip()
        return (name, heads.get(name)) if name else (None, None)

    # -- predictions ---------------------------------------------------------------------

    def _predict(self, ours: str, theirs: str) -> MergePrediction:
        key = (ours, theirs)
        if key not in self._predictions:
            if len(self._predictions) >= _CACHE:
                self._predictions.clear()
            self._predictions[key] = predict_merge(self.root, ours, theirs)
        return self._predictions[key]

    def _check_pair(self, conn: Connection, one: str, other: str) -> None:
        a, b = conflicts.pair(one, other)
        va, vb = self._views[a], self._views[b]
        if not va.changed & vb.changed:
            self._clear(conn, a, b)
            return
        prediction = self._predict(va.commit, vb.commit)
        if prediction.clean:
            self._clear(conn, a, b)
            return
        self._found(conn, a, b, prediction, self._commits(va, prediction),
                    self._commits(vb, prediction), with_base=False)

    def _check_base(self, conn: Connection, name: str) -> None:
        view, base = self._views[name], self._base
        if base is None or self._base_name is None:
            return
        if view.fork == base or not view.changed & changed_paths(self.root, view.fork, base):
            self._clear(conn, name, self._base_name)
            return
        prediction = self._predict(view.commit, base)
        if prediction.clean:
            self._clear(conn, name, self._base_name)
            return
        paths = tuple(f.path for f in prediction.files)
        theirs = commits_touching(self.root, prediction.base, base, paths)
        self._found(conn, name, self._base_name, prediction, self._commits(view, prediction),
                    theirs, with_base=True)

    def _commits(self, view: View, prediction: MergePrediction) -> tuple[str, ...]:
        paths = tuple(f.path for f in prediction.files)
        found = commits_touching(self.root, prediction.base, view.head, paths)
        return found + ((UNCOMMITTED,) if view.dirty else ())

    # -- the board and the notes ---------------------------------------------------------

    def _found(self, conn: Connection, a: str, b: str, prediction: MergePrediction,
               a_commits: tuple[str, ...], b_commits: tuple[str, ...], *,
               with_base: bool) -> None:
        files = tuple(ConflictFile(f.path, f.ours, f.theirs) for f in prediction.files)
        conflict, _ = conflicts.found(conn, a, b, files, a_commits=a_commits,
                                      b_commits=b_commits, with_base=with_base)
        for who in (a,) if with_base else (a, b):
            key = f"conflict:{conflict.id}:{who}"
            if not pings.was_sent(conn, key):
                pings.send_once(conn, key, who, found_note(conflict, who, self._bullpen),
                                kind=NoteKind.CONFLICT)

    def _clear(self, conn: Connection, a: str, b: str) -> None:
        if conflicts.open_between(conn, a, b) is None:
            return
        conflict = conflicts.clear(conn, a, b)
        if conflict is None:
            return
        for who in (a,) if conflict.with_base else (a, b):
            pings.send_once(conn, f"conflict-cleared:{conflict.id}:{who}", who,
                            cleared_note(conflict, who), kind=NoteKind.CONFLICT)

    def _clear_gone(self, conn: Connection, live: dict[str, Session]) -> None:
        """Conflicts of sessions that stopped or left clear (their work is not live)."""
        for conflict in conflicts.open_conflicts(conn):
            sides = (conflict.a,) if conflict.with_base else (conflict.a, conflict.b)
            if any(side not in live for side in sides):
                self._clear(conn, conflict.a, conflict.b)


def _live(session: Session) -> bool:
    worktree = session.worktree
    return bool(worktree and session.desired != DesiredState.STOPPED
                and Path(worktree).is_dir())
