"""A real, throwaway PostgreSQL server for the tests: initdb + pg_ctl in a temp directory.

It listens on a unix socket in its directory and on 127.0.0.1 (a free port); local
socket connections are trusted, TCP ones need a password (scram), as a shared server
would. As root (CI, containers) the server runs as the `postgres` user, since PostgreSQL
refuses to run as root. Each test gets a fresh database copied from a migrated template.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

SUPERUSER = "bullpen"
TEMPLATE = "bullpen_template"


def find_bin_dir() -> Path | None:
    """The directory holding initdb and pg_ctl (PATH first, then Debian's layout)."""
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    return Path(candidates[0]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PgCluster:
    """One running server; `url(db)` names a database on it over the unix socket."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.dir = Path(tempfile.mkdtemp(prefix="bullpen-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self._run_as: list[str] = []
        if os.geteuid() == 0:  # postgres refuses root: run it as the postgres user
            user = pwd.getpwnam("postgres")
            os.chown(self.dir, user.pw_uid, user.pw_gid)
            self._run_as = ["runuser", "-u", "postgres", "--"]
        self._counter = itertools.count(1)

    def start(self) -> None:
        self._pg("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth-local=trust",
                 "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync", "--no-instructions")
        options = (f"-k {self.dir} -p {self.port} -c listen_addresses=127.0.0.1"
                   " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
                   " -c max_connections=200")
        self._pg("pg_ctl", "-D", str(self.data), "-l", str(self.dir / "server.log"),
                 "-o", options, "-w", "-t", "60", "start")

    def stop(self) -> None:
        self._pg("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop",
                 check=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    def _pg(self, program: str, *args: str, check: bool = True) -> None:
        result = subprocess.run([*self._run_as, str(self.bin_dir / program), *args],
                                capture_output=True, text=True, cwd=self.dir)
        if check and result.returncode != 0:
            raise RuntimeError(f"{program} failed: {result.stderr.strip() or result.stdout}")

    def url(self, database: str = "postgres", user: str = SUPERUSER) -> str:
        """A URL on the unix socket (trusted: no password)."""
        return f"postgresql:///{database}?host={self.dir}&port={self.port}&user={user}"

    def tcp_url(self, database: str, user: str, password: str | None = None) -> str:
        """A URL over TCP (needs a password, given here or found in a pgpass file)."""
        secret = f":{password}" if password else ""
        return f"postgresql://{user}{secret}@127.0.0.1:{self.port}/{database}"

    def admin(self, sql: str, database: str = "postgres") -> list:
        """Run one statement as the superuser (autocommit) and return its rows."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            cursor = conn.execute(sql)
            return cursor.fetchall() if cursor.description else []

    def make_template(self) -> None:
        """A database migrated to the latest schema, copied for each test."""
        from board import postgres

        self.admin(f"CREATE DATABASE {TEMPLATE}")
        postgres.connect(self.url(TEMPLATE)).close()

    def new_database(self) -> str:
        name = f"room_{next(self._counter)}"
        self.admin(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        # Roles are per cluster, not copied with the template: give this room its group.
        self.admin("SELECT bullpen_setup_pairing()", database=name)
        return name

    def new_owned_database(self) -> tuple[str, str]:
        """An empty database owned, as in production, by a role of its own that may create
        roles (pairing) and end other sessions (revoking) but is no superuser."""
        name = f"room_{next(self._counter)}"
        owner = f"owner_{name}"
        self.admin(f"CREATE ROLE {owner} LOGIN CREATEROLE")
        self.admin(f"GRANT pg_signal_backend TO {owner}")
        self.admin(f"CREATE DATABASE {name} OWNER {owner}")
        return name, owner

    def drop_database(self, name: str) -> None:
        self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
