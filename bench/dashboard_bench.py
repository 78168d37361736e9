"""Dashboard bench: idle CPU and note commit → on-screen latency, against bare SQLite.

A store with 50 sessions, 5,000 tasks and 50,000 notes; the dashboard runs headless in a
child process (`--serve`). While it idles for IDLE_SECONDS we measure its process CPU time
over wall time, and in this process a bare loop doing the same poll query at the same
rate. Then we commit NOTES notes one by one and the child records when each was drawn
(after the refresh that shows it); a bare poller thread here records when a plain
`SELECT` first sees each note. Run: `python bench/dashboard_bench.py` (or `main()`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from board import notes, sessions  # noqa: E402
from board.db import connect, write  # noqa: E402
from board.home import DB_NAME  # noqa: E402
from board.identity import Caller  # noqa: E402

SESSIONS, TASKS, NOTE_ROWS = 50, 5_000, 50_000
IDLE_SECONDS = 10.0
NOTES = 100
GAP_SECONDS = 0.03
STOP = "bench-stop"
STATUSES = ("triage", "todo", "ready", "running", "blocked", "review", "done", "archived")


def build_store(home: Path) -> None:
    """50 sessions, 5,000 tasks and 50,000 notes (mostly read), in few transactions."""
    home.mkdir(parents=True, exist_ok=True)
    conn = connect(home / DB_NAME)
    for number in range(SESSIONS):
        sessions.register(conn, f"s{number:02d}", agent="hermes", branch=f"bullpen/s{number:02d}")
    now = time.time()
    with write(conn):
        conn.executemany(
            "INSERT INTO tasks (title, status, assignee, created_by, created_at, updated_at)"
            " VALUES (?, ?, ?, 'operator', ?, ?)",
            [(f"task {i}", STATUSES[i % len(STATUSES)], f"s{i % SESSIONS:02d}", now, now)
             for i in range(TASKS)])
        conn.executemany(
            "INSERT INTO notes (id, sender, recipient, body, kind, created_at)"
            " VALUES (?, ?, ?, ?, 'note', ?)",
            [(i, f"s{i % SESSIONS:02d}", f"s{(i + 1) % SESSIONS:02d}", f"note {i}", now)
             for i in range(1, NOTE_ROWS + 1)])
        conn.executemany(
            "INSERT INTO deliveries (note, recipient, state, read_at) VALUES (?, ?, ?, ?)",
            [(i, f"s{(i + 1) % SESSIONS:02d}", "delivered" if i % 20 else "pending",
              now if i % 20 else None) for i in range(1, NOTE_ROWS + 1)])
    conn.close()


class BenchActions:
    """Session actions without tmux: a fixed preview, no git."""

    def capture(self, name: str) -> str:
        return f"{name}: idle\n> "

    def changed_files(self, name: str) -> int | None:
        return None

    def code_flows(self) -> dict:  # no git: no session's code has moved
        return {}

    def __getattr__(self, verb: str):  # focus, zoom, spawn, stop, restart: nothing to do
        return lambda *args, **kwargs: None


def serve(home: Path, idle_seconds: float) -> None:
    """The child: run the dashboard headless, report idle CPU, then note draw times."""
    from tui.dashboard.app import DashboardApp
    from tui.dashboard.messages import RoomUpdated
    from tui.dashboard.screens.main import MainScreen

    def emit(document: dict) -> None:
        print(json.dumps(document), flush=True)

    class BenchScreen(MainScreen):
        seen: dict[int, float] = {}

        def on_room_updated(self, message: RoomUpdated) -> None:  # runs before MainScreen's
            delta = message.delta
            if delta.initial:
                self.set_timer(1.0, self._idle_start)  # let start-up work settle first
            ids = [item.ref for item in delta.stream if item.kind == "note"]
            if ids:
                self.call_after_refresh(self._drawn, ids)
            if any(item.text == STOP for item in delta.stream):
                self.call_after_refresh(self._finish)

        def _drawn(self, ids: list[int]) -> None:
            now = time.time()
            if not self.seen:
                self._notes_cpu = time.process_time()  # CPU spent per note from here on
            for note_id in ids:
                self.seen.setdefault(note_id, now)

        def _idle_start(self) -> None:
            self._cpu, self._wall = time.process_time(), time.monotonic()
            self.set_timer(idle_seconds, self._idle_end)

        def _idle_end(self) -> None:
            emit({"idle_cpu": time.process_time() - self._cpu,
                  "idle_wall": time.monotonic() - self._wall})

        def _finish(self) -> None:
            emit({"seen": self.seen,
                  "notes_cpu": time.process_time() - getattr(self, "_notes_cpu", 0.0)})
            self.app.exit()

    class BenchApp(DashboardApp):
        def get_default_screen(self) -> MainScreen:
            return BenchScreen(self.home, self.actions)

    BenchApp(home, BenchActions()).run(headless=True, size=(160, 48))


def bare_idle(db: Path, seconds: float, interval: float) -> float:
    """CPU seconds a bare loop spends polling max(id) at the dashboard's rate."""
    conn = connect(db)
    stop = threading.Event()
    cpu = time.process_time()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not stop.wait(interval):
        conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()
    conn.close()
    return time.process_time() - cpu


class BarePoller(threading.Thread):
    """Polls the notes table like the dashboard does, with nothing else: the floor."""

    def __init__(self, db: Path, interval: float) -> None:
        super().__init__(daemon=True)
        self.conn = connect(db)
        self.interval = interval
        self.seen: dict[int, float] = {}
        self.query_times: list[float] = []
        self.stop = threading.Event()
        self.last = self.conn.execute("SELECT max(id) FROM notes").fetchone()[0]

    def run(self) -> None:
        while not self.stop.wait(self.interval):
            started = time.perf_counter()
            rows = self.conn.execute("SELECT id FROM notes WHERE id > ? ORDER BY id",
                                     (self.last,)).fetchall()
            self.query_times.append(time.perf_counter() - started)
            now = time.time()
            for (note_id,) in rows:
                self.seen.setdefault(note_id, now)
                self.last = note_id


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main() -> int:
    """Build the store, run the child dashboard, print idle CPU and latency with ratios."""
    from tui.dashboard.tail import POLL_SECONDS

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / ".bullpen"
        started = time.monotonic()
        build_store(home)
        print(f"store: {SESSIONS} sessions, {TASKS} tasks, {NOTE_ROWS} notes"
              f" (built in {time.monotonic() - started:.1f} s)")
        child = subprocess.Popen([sys.executable, __file__, "--serve", str(home),
                                  str(IDLE_SECONDS)], stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        bare_cpu = bare_idle(home / DB_NAME, IDLE_SECONDS, POLL_SECONDS)
        idle = json.loads(child.stdout.readline())
        app_share = idle["idle_cpu"] / idle["idle_wall"]
        bare_share = bare_cpu / IDLE_SECONDS
        print(f"idle CPU: dashboard {app_share:.2%} of a core over {idle['idle_wall']:.1f} s"
              f" (target < 2 %); bare poll loop {bare_share:.2%};"
              f" ratio {app_share / max(bare_share, 1e-9):.1f}x")

        conn = connect(home / DB_NAME)
        poller = BarePoller(home / DB_NAME, POLL_SECONDS)
        poller.start()
        committed: dict[int, float] = {}
        operator = Caller("operator")
        for number in range(NOTES):
            note = notes.send(conn, operator, f"s{number % SESSIONS:02d}", f"bench {number}")
            committed[note.id] = time.time()
            time.sleep(GAP_SECONDS)
        notes.send(conn, operator, "s00", STOP)
        finish = json.loads(child.stdout.readline())
        seen = {int(k): v for k, v in finish["seen"].items()}
        child.wait(timeout=30)
        poller.stop.set()
        poller.join()
        conn.close()

    app_ms = [(seen[i] - t) * 1000 for i, t in committed.items() if i in seen]
    bare_ms = [(poller.seen[i] - t) * 1000 for i, t in committed.items() if i in poller.seen]
    query_ms = [t * 1000 for t in poller.query_times]
    p50, p99 = percentile(app_ms, 0.5), percentile(app_ms, 0.99)
    b50, b99 = percentile(bare_ms, 0.5), percentile(bare_ms, 0.99)
    print(f"note commit → drawn: p50 {p50:.1f} ms, p99 {p99:.1f} ms over {len(app_ms)} notes"
          f" (target p99 ≤ 100 ms); missing {NOTES - len(app_ms)}")
    print(f"bare poller ({POLL_SECONDS * 1000:.0f} ms interval): p50 {b50:.1f} ms,"
          f" p99 {b99:.1f} ms; ratio p50 {p50 / b50:.1f}x, p99 {p99 / b99:.1f}x")
    print(f"bare query SELECT notes WHERE id > ?: p50 {percentile(query_ms, 0.5):.3f} ms")
    # CPU time is far less sensitive to a loaded machine than wall-clock latency.
    per_note = finish["notes_cpu"] * 1000 / max(len(seen) - 1, 1)
    print(f"dashboard CPU per note drawn: {per_note:.1f} ms"
          f" ({per_note / max(percentile(query_ms, 0.5), 1e-6):.0f}x the bare query)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(Path(sys.argv[2]), float(sys.argv[3]))
    else:
        sys.exit(main())
