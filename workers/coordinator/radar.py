"""The conflict radar: after each recorded change, predict the merges it affects.

The coordinator calls `changed(source)` for every recorded change (a session's edit or
commit, or the main checkout's); the radar's own thread coalesces them and scans. A
session's work is one commit (uncommitted edits count: `worktrees.predict.snapshot` the
first time and after its HEAD moved, then the files each change names written in-process
by `worktrees.tree_edit`), with the paths it changed since it left the base branch. Only
pairs whose changed paths overlap are predicted (`git merge-tree`), so the cost follows
the overlap, not the number of sessions; each session is also predicted against the base
branch when the base changed a path it changed too. Nothing touches a worktree or an index.

A predicted conflict is stored (board.conflicts) and told to each session once, as a
`conflict` note naming the other side, the files, the lines and what to do; when it
clears, each is told once more (a side stopping and coming back is no change: untold).
A round with nothing recorded compares the branch heads too (each second, when anything
it reads moved: radar_rounds), so a commit no change event announced (a sync, a landing
by update-ref) is still seen, and a dirty session in a conflict is looked at again each
second (undoing an edit records no change).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from board import conflicts, sessions
from board.conflicts import ConflictFile
from board.connection import Connection
from board.errors import BullpenError
from board.models import Session
from board.vocabulary import MAIN_CHECKOUT, EventKind
from workers.coordinator.radar_cache import MergeCache, branch_heads, checked_out
from workers.coordinator.radar_notes import tell_cleared, tell_found
from workers.coordinator.radar_rounds import QuietRounds
from workers.coordinator.radar_views import View, edited_view, is_live
from worktrees.gitcmd import run_git
from worktrees.naming import branch_for
from worktrees.predict import MergePrediction, changed_paths, commits_touching, snapshot
from worktrees.tree_edit import TreeEditor

log = logging.getLogger(__name__)

RESCAN_EVERY = 1.0  # seconds between looks at the branch heads when nothing was recorded
# A hangup or SIGTERM meant for the coordinator reaches its git children too (one process
# group), and a git ended so says nothing: a failure followed by the stop within this
# many seconds is the room going down, not a fault to log.
STOPPING = 2.0
UNCOMMITTED = "uncommitted"
PATHS_IN_EVENT = 20  # a change event lists at most this many paths (board.alerts)
# What can change a session's work, the base, or who is live.
HEARD = {EventKind.CHANGE_RECORDED, EventKind.SESSION_LANDED, EventKind.SESSION_UPDATED,
         EventKind.SESSION_REGISTERED, EventKind.SESSION_REMOVED}


class Radar:
    """Predicts conflicts between live sessions and with the base; see the module doc."""

    def __init__(self, root: Path, connect_db: Callable[[], Connection],
                 mine: Callable[[list[Session]], list[Session]] = lambda known: known,
                 bullpen: str | None = None) -> None:
        from workers.coordinator.pings import BULLPEN

        self.root = Path(root)
        self._connect = connect_db
        self._mine = mine
        self._bullpen = bullpen or BULLPEN  # by name: bullpen's directory is on the pane's PATH
        self._views: dict[str, View] = {}
        self._base: str | None = None  # the base branch's commit at the last scan
        self._base_name: str | None = None
        self._git = MergeCache(self.root)
        self._editor: TreeEditor | None = None  # opened on the scanning thread
        self._open: set[tuple[str, str]] = set()  # open conflicts, read once per scan
        self._pending: dict[str, set[str] | None] = {}  # None: look at every file
        common = run_git(self.root, "rev-parse", "--path-format=absolute", "--git-common-dir")
        self._git_dir = Path(common.stdout.strip())  # the main checkout's .git
        self._keep = self._git_dir / "bullpen-radar"  # the radar's own index files
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rounds: QuietRounds | None = None  # made on the scanning thread
        self.scans = 0  # for tests and the bench

    @property
    def predicted(self) -> int:
        """Merges git actually predicted (not answered from the cache): tests, the bench."""
        return self._git.predicted

    # -- the thread ----------------------------------------------------------------------

    def start(self) -> Radar:
        """Start scanning on a thread of its own; returns itself."""
        self._thread = threading.Thread(target=self._run, name="bullpen-radar", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def heard(self, event) -> None:  # noqa: ANN001 - a board.models.Event
        """An event from the coordinator's tail: scan for what it may have changed."""
        if event.kind not in HEARD:
            return
        paths = event.data.get("paths") if event.kind == EventKind.CHANGE_RECORDED else None
        if event.data.get("commit") or not paths or len(paths) >= PATHS_IN_EVENT:
            paths = None  # a commit, or more paths than the event lists: look at all
        self.changed(event.session, paths)

    def changed(self, source: str | None, paths: list[str] | None = None) -> None:
        """A change was recorded for `source` (a session, or the main checkout), in
        `paths` (uncommitted edits) or anywhere (None)."""
        name = source or MAIN_CHECKOUT
        with self._lock:
            if name in self._pending and self._pending[name] is None:
                pass
            elif paths is None:
                self._pending[name] = None
            else:
                self._pending[name] = (self._pending.get(name) or set()) | set(paths)
        self._wake.set()

    def _run(self) -> None:
        conn = self._connect()
        self.rounds = QuietRounds(conn, self._git_dir)
        try:
            while not self._stop.is_set():
                self._wake.wait(RESCAN_EVERY)
                self._wake.clear()
                if self._stop.is_set():
                    break
                with self._lock:
                    pending, self._pending = self._pending, {}
                if (changed := pending or self._quiet_round(conn, self.rounds)) is None:
                    continue
                try:
                    self.scan(conn, changed)
                except Exception as error:  # a store fault or git trouble: next round retries
                    self.rounds.again()
                    if self._stop.wait(STOPPING):
                        break  # the room is going: its signals end the radar's git too
                    log.error("conflict radar: %s", error)
                    with self._lock:
                        self._pending = {**dict.fromkeys(pending), **self._pending}
        finally:
            conn.close()
            if self._editor is not None:
                self._editor.close()

    def _quiet_round(self, conn: Connection, rounds: QuietRounds) -> dict[str, None] | None:
        """Every branch head when anything they depend on moved (radar_rounds), and the
        dirty sessions in an open conflict each time; None: nothing to look at."""
        full = rounds.due()
        if full:  # the store may have moved: its open conflicts, not the last scan's
            self._open = {(c.a, c.b) for c in conflicts.open_conflicts(conn)}
        sides = {side for pair in self._open for side in pair}
        reverted = dict.fromkeys(name for name, view in self._views.items()
                                 if view.dirty and name in sides)
        return {MAIN_CHECKOUT: None, **reverted} if full else (reverted or None)

    # -- one scan ------------------------------------------------------------------------

    def scan(self, conn, changed: Mapping[str, set[str] | None] | set[str]) -> None:
        """Re-read the sessions in `changed` (name -> the paths edited, None for any; and
        any session whose branch head moved), then predict every pair and base merge
        that can have changed."""
        if not isinstance(changed, Mapping):
            changed = dict.fromkeys(changed)
        self.scans += 1
        known = self._mine(sessions.all_sessions(conn))
        live = {s.name: s for s in known if is_live(s)}
        if self.rounds is not None:  # a worktree going (or coming) moves its directory
            self.rounds.watch_trees(s.worktree for s in known if s.worktree)
        # A session's own change cannot move the base or another branch: the refs are
        # read on the first scan, for the main checkout's changes and each quiet round.
        everything = self.scans == 1 or not changed or MAIN_CHECKOUT in changed
        heads = branch_heads(self.root) if everything else None
        base_moved = False
        if heads is not None:
            base_name, base = checked_out(self._git_dir, heads)
            base_moved = (base_name, base) != (self._base_name, self._base)
            self._base_name, self._base = base_name, base
        open_ = conflicts.open_conflicts(conn)
        self._open = {(c.a, c.b) for c in open_}
        for name in set(self._views) - set(live):
            del self._views[name]
            (self._keep / f"{name}.index").unlink(missing_ok=True)
        fresh: set[str] = set()
        for name, session in live.items():
            view = self._views.get(name)
            branch = session.branch or branch_for(name)
            moved = heads is not None and view is not None and heads.get(branch) != view.head
            if view is None or name in changed or moved:
                fresh |= self._look(name, session, None if moved else changed.get(name))
            elif base_moved:
                self._views[name] = self._rebased(view)
        self._clear_gone(conn, live, open_)
        pairs = [conflicts.pair(one, other) for one in sorted(fresh)
                 for other in sorted(set(self._views) - {one})
                 if other not in fresh or one < other]  # each pair once
        with_base = sorted(set(self._views) if base_moved else fresh & set(self._views))
        # Every merge this scan will ask about, predicted together in one git process.
        self._git.prefetch([*(m for a, b in pairs if (m := self._pair_merge(a, b))),
                            *(m for name in with_base if (m := self._base_merge(name)))])
        for a, b in pairs:
            self._check_pair(conn, a, b)
        for name in with_base:
            self._check_base(conn, name)

    def _look(self, name: str, session: Session, paths: set[str] | None = None) -> set[str]:
        """Refresh a session's view (`paths` only, when given); the names whose view changed."""
        if not session.worktree:  # a session without its worktree (yet) has no work to see
            return set()
        old = self._views.get(name)
        if old is not None and paths:
            if self._editor is None:  # opened on the scanning thread
                self._editor = TreeEditor(self.root)
            quick = edited_view(self._editor, session, old, paths)
            if quick is not None:
                if quick.commit == old.commit:
                    return set()
                self._views[name] = quick
                return {name}
        shot = None
        for _attempt in range(2):  # git's own way, every file: first look, HEAD moved…
            try:
                shot = snapshot(session.worktree, self._keep / f"{name}.index")
                break
            except BullpenError as error:  # mid-removal, no commit yet, or a git racing
                failure = error
        if shot is None:  # the next change, or the backstop's head check, looks again
            if self.rounds is not None:
                self.rounds.again()
            if not self._stop.is_set():  # (quiet when the room is going down)
                log.info("radar: %s not looked at this time: %s", name, failure)
            return set()
        if old is not None and old.commit == shot.commit:
            return set()
        fork = self._fork(shot.head)
        self._views[name] = View(shot.commit, shot.head, shot.dirty, fork,
                                 changed_paths(self.root, fork, shot.commit),
                                 tree=shot.tree, head_tree=shot.head_tree)
        return {name}

    def _fork(self, head: str) -> str | None:
        """Where `head` left the base (the snapshot's parent is its HEAD: same answer)."""
        return self._git.fork(head, self._base)

    def _refresh_all(self, conn, name: str) -> None:
        if (session := sessions.get(conn, name)) is not None:
            self._look(name, session)

    def _rebased(self, view: View) -> View:
        fork = self._fork(view.head)
        if fork == view.fork:
            return view
        return View(view.commit, view.head, view.dirty, fork,
                    changed_paths(self.root, fork, view.commit))

    # -- predictions ---------------------------------------------------------------------

    def _pair_merge(self, a: str, b: str) -> tuple[str, str] | None:
        """The merge `_check_pair` will predict (None: their changed paths do not meet)."""
        va, vb = self._views[a], self._views[b]
        return (va.commit, vb.commit) if va.changed & vb.changed else None

    def _base_merge(self, name: str) -> tuple[str, str] | None:
        """The merge `_check_base` will predict (None: the base has not touched its paths)."""
        view, base = self._views[name], self._base
        if base is None or self._base_name is None or view.fork == base or \
                not view.changed & self._git.base_changed(view.fork, base):
            return None
        return view.commit, base

    def _predict(self, ours: str, theirs: str) -> MergePrediction:
        return self._git.predict(ours, theirs)

    def _check_pair(self, conn: Connection, one: str, other: str) -> None:
        a, b = conflicts.pair(one, other)
        va, vb = self._views[a], self._views[b]
        if not va.changed & vb.changed:
            self._clear(conn, a, b)
            return
        prediction = self._predict(va.commit, vb.commit)
        if not prediction.clean and (va.partial or vb.partial):
            # Only the reported paths were re-read: an undone edit the watcher never
            # reported could be in there. Look at every file before telling anyone.
            for name, view in ((a, va), (b, vb)):
                if view.partial:
                    self._views[name] = replace(view, partial=False)
                    self._refresh_all(conn, name)
            va, vb = self._views[a], self._views[b]
            prediction = self._predict(va.commit, vb.commit)
        if prediction.clean:
            self._clear(conn, a, b)
            return
        self._found(conn, a, b, prediction, self._commits(va, prediction),
                    self._commits(vb, prediction), with_base=False)

    def _check_base(self, conn: Connection, name: str) -> None:
        if self._base is None or self._base_name is None:
            return
        merge = self._base_merge(name)
        if merge is None:
            self._clear(conn, name, self._base_name)
            return
        view, base = self._views[name], self._base
        prediction = self._predict(*merge)
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
        self._open.add((a, b))
        tell_found(conn, conflict, self._bullpen)

    def _clear(self, conn, a: str, b: str) -> None:
        conflict = conflicts.clear(conn, a, b) if (a, b) in self._open else \
            conflicts.unpark(conn, a, b)  # parked while a side was stopped; cleared since
        self._open.discard((a, b))
        if conflict is not None:
            tell_cleared(conn, conflict)

    def _clear_gone(self, conn, live: dict[str, Session], open_: list) -> None:
        """Park the conflicts of sessions that stopped or left, untold (conflicts.park)."""
        for conflict in open_:
            sides = (conflict.a,) if conflict.with_base else (conflict.a, conflict.b)
            if any(side not in live for side in sides):  # never checked in this scan
                conflicts.park(conn, conflict.a, conflict.b)
