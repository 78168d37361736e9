"""`bullpen notify test` against a real receiver over real HTTP, the one-line refusals,
and `notify:` refused in the committed bullpen.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.cli_runner import run_cli
from tests.notify_receiver import receiver, refusing_port
from tests.waiting import wait_until
from workers.tmux.server import RoomServer, socket_name_for


def configure(repo: Path, urls: list[str]) -> None:
    home = repo / ".bullpen"
    home.mkdir(exist_ok=True)
    (home / "local.yaml").write_text(yaml.safe_dump({"notify": {"urls": urls}}))


def test_notify_test_reaches_the_receiver_with_the_pages_link_while_serve_runs(
        git_repo: Path) -> None:
    with receiver() as got:
        configure(git_repo, [got.url])
        done = run_cli("notify", "test", cwd=git_repo)
        assert (done.returncode, done.stdout) == (0, f"sent to {got.url}\n"), done.stderr
        wait_until(lambda: len(got.posts) == 1, 5, message="the test message")
        assert got.posts[0]["title"] == "bullpen repo: test"
        assert got.posts[0]["message"] == "bullpen notify test: notifications reach you here"
        # `bullpen serve` leaves its page's address here while it runs
        (git_repo / ".bullpen" / "web-url").write_text("http://127.0.0.1:8765/\n")
        assert run_cli("notify", "test", cwd=git_repo).returncode == 0
        wait_until(lambda: len(got.posts) == 2, 5, message="the second test message")
        assert got.posts[1]["message"].splitlines()[-1] == "http://127.0.0.1:8765/"


def test_a_refusing_receiver_is_exit_1_and_doctor_names_it_without_secrets(
        git_repo: Path) -> None:
    port = refusing_port()
    configure(git_repo, [f"json://user:hunter22@127.0.0.1:{port}/path-token"])
    done = run_cli("notify", "test", cwd=git_repo)
    assert done.returncode == 1 and done.stdout.startswith(
        f"not delivered to json://***@127.0.0.1:{port}/***: "), done.stdout
    assert "Connection error" in done.stdout  # why, in Apprise's words (scrubbed)
    doctor = run_cli("doctor", cwd=git_repo)
    assert f"the last notification to json://***@127.0.0.1:{port}/*** was not delivered" \
        in doctor.stdout, doctor.stdout
    for said in (done.stdout, done.stderr, doctor.stdout, doctor.stderr):
        assert "hunter22" not in said and "path-token" not in said


def test_a_bad_url_or_no_notify_is_one_line_exit_2(git_repo: Path) -> None:
    configure(git_repo, ["nosuchservice://SECRETTOKEN/abc"])
    done = run_cli("notify", "test", cwd=git_repo)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "is not a URL Apprise can send to" in done.stderr and "SECRET" not in done.stderr
    (git_repo / ".bullpen" / "local.yaml").write_text("store: sqlite\n")
    done = run_cli("notify", "test", cwd=git_repo)
    assert done.returncode == 2 and "no notify: in " in done.stderr, done.stderr


def test_notify_in_bullpen_yaml_is_refused_in_one_line(git_repo: Path) -> None:
    (git_repo / "bullpen.yaml").write_text(
        "sessions:\n  alice: {}\nnotify:\n  urls: [tgram://SECRET/1]\n")
    done = run_cli("up", "--detach", "--no-dashboard", cwd=git_repo)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == ("bullpen: bullpen.yaml:3: notify: does not belong in"
                                   " bullpen.yaml (it is committed); put it in"
                                   " .bullpen/local.yaml")


@pytest.mark.slow
def test_without_apprise_up_doctor_and_notify_test_say_how_to_install_it(
        git_repo: Path, tmp_path: Path) -> None:
    """An interpreter where `import apprise` fails, as on an install without the extra."""
    shadow = tmp_path / "no-apprise"
    shadow.mkdir()
    (shadow / "apprise.py").write_text("raise ImportError('No module named apprise')\n")
    env = {"PYTHONPATH": str(shadow)}
    configure(git_repo, ["json://127.0.0.1:9"])
    (git_repo / "bullpen.yaml").write_text("agent: cat\nsessions:\n  alice: {}\n")
    install = "pip install 'bullpen[notify]'"
    done = run_cli("notify", "test", cwd=git_repo, env=env)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert install in done.stderr and "Traceback" not in done.stderr
    doctor = run_cli("doctor", cwd=git_repo, env=env)
    assert f"Apprise is not installed: {install}" in doctor.stdout, doctor.stdout
    try:
        up = run_cli("up", "--detach", "--no-dashboard", cwd=git_repo, env=env)
        assert up.returncode == 0, up.stderr
        said = [line for line in (up.stdout + up.stderr).splitlines() if "notif" in line]
        assert said == [f"notifications off: notify: is set in local.yaml but Apprise is not"
                        f" installed: {install}"], up.stdout + up.stderr
    finally:
        run_cli("down", cwd=git_repo)
        RoomServer(socket_name_for(git_repo)).kill_server()
