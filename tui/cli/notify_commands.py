"""`bullpen notify test`: send one notification to every receiver of `notify:` now.

The receivers are Apprise URLs in the room's local config (`.bullpen/local.yaml`,
never bullpen.yaml: they hold tokens). Each is named by its label only (scheme and
host), never its whole URL.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    notify = subparsers.add_parser(
        "notify", help="notifications to your phone or desktop (notify: in .bullpen/local.yaml)",
        description="Notifications: Apprise URLs under notify: in .bullpen/local.yaml"
                    " (docs/notify.md). The coordinator sends a question, a task done or"
                    " blocked, a budget reached, a landing's outcome, its own trouble.")
    verbs = notify.add_subparsers(dest="verb", metavar="VERB", required=True)
    test = verbs.add_parser("test", help="send one notification to every receiver now")
    test.set_defaults(handler=notify_test)


def notify_test(args: argparse.Namespace) -> int:
    from board.errors import BadInput
    from board.home import room_home
    from board.notify_config import (
        KEY,
        LOCAL_CONFIG,
        check_urls,
        label,
        page_url,
        read,
        require_apprise,
    )
    from workers.coordinator.notify_sender import send_now

    home = room_home()
    settings = read(home)
    if settings is None:
        raise BadInput(f"no {KEY}: in {home / LOCAL_CONFIG}; see docs/notify.md")
    require_apprise()
    check_urls(settings)
    page = page_url(home)
    body = "bullpen notify test: notifications reach you here" + (f"\n{page}" if page else "")
    failed = 0
    for url in settings.urls:
        why = send_now(home, url, f"bullpen {home.resolve().parent.name}: test", body)
        print(f"sent to {label(url)}" if why is None
              else f"not delivered to {label(url)}: {why}")
        failed += why is not None
    return 1 if failed else 0
