"""bullpen serve's guards before it listens: the extra, the address, TLS, the port."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runner import run_cli


@pytest.fixture
def room(git_repo: Path) -> Path:
    assert run_cli("init", cwd=git_repo).returncode == 0
    return git_repo


def test_without_the_extra_it_says_how_to_install_it(room: Path) -> None:
    hidden = ("import sys; sys.modules['starlette'] = None; sys.argv = ['bullpen', 'serve'];"
              " from tui.cli import main; sys.exit(main())")
    result = subprocess.run([sys.executable, "-c", hidden], cwd=room, capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 1
    assert result.stderr == "bullpen serve needs the web extra: pip install 'bullpen[serve]'\n"
    assert not (room / ".bullpen" / "web-token").exists()


@pytest.mark.parametrize(("args", "words"), [
    (("--host", "0.0.0.0"), "--host 0.0.0.0 puts the page on the network: give --tls-cert"),
    (("--host", "192.168.1.5", "--tls-cert", "cert.pem"), "--tls-cert and --tls-key go"),
    (("--tls-cert", "no.pem", "--tls-key", "no.key"), "no.pem: no such file"),
    (("--port", "70000"), "--port 70000 is not a port"),
])
def test_a_page_open_to_the_network_needs_tls_or_insecure(
        room: Path, args: tuple[str, ...], words: str) -> None:
    result = run_cli("serve", *args, cwd=room, timeout=30)
    assert result.returncode == 2, result
    assert words in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stdout == ""
    assert not (room / ".bullpen" / "web-token").exists()  # nothing made, nothing served


def test_insecure_warns_and_serves(room: Path) -> None:
    serve = subprocess.Popen([str(Path(sys.executable).parent / "bullpen"), "serve",
                              "--host", "0.0.0.0", "--port", "0", "--insecure"], cwd=room,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "/login?token=" in serve.stdout.readline()
        assert serve.stderr.readline().startswith("warning: the page on 0.0.0.0 is plain HTTP")
    finally:
        serve.terminate()
        assert serve.wait(10) == 0


def test_over_tls_the_page_is_https_and_its_cookie_is_secure(room: Path, tmp_path: Path) -> None:
    """A real self-signed certificate (openssl): the page on another host answers only
    over TLS, with the login cookie marked Secure (it is never sent in clear)."""
    import http.client
    import shutil
    import ssl
    from urllib.parse import urlsplit

    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed here")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True,
                   timeout=60)
    serve = subprocess.Popen([str(Path(sys.executable).parent / "bullpen"), "serve",
                              "--host", "127.0.0.1", "--port", "0", "--tls-cert", str(cert),
                              "--tls-key", str(key)], cwd=room,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = serve.stdout.readline()
        assert "https://127.0.0.1:" in line and "/login?token=" in line, line
        link = urlsplit(line.split()[-1])
        trusted = ssl.create_default_context(cafile=str(cert))
        https = http.client.HTTPSConnection(link.hostname, link.port, context=trusted,
                                            timeout=10)
        https.request("GET", f"{link.path}?{link.query}")
        answer = https.getresponse()
        cookie = answer.getheader("set-cookie") or ""
        assert answer.status in (302, 303, 307), answer.status
        assert "secure" in cookie.lower() and "httponly" in cookie.lower(), cookie
        assert "samesite=strict" in cookie.lower(), cookie
        https.close()
        plain = http.client.HTTPConnection(link.hostname, link.port, timeout=10)
        try:  # plain HTTP on the TLS port gets no page: a reset, or an error status
            plain.request("GET", "/")
            status: int | None = plain.getresponse().status
        except (http.client.HTTPException, OSError):
            status = None
        assert status is None or status >= 400, status
    finally:
        serve.terminate()
        assert serve.wait(10) == 0
