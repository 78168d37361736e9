"""What Claude Code's screen asks, by kind, for tests that follow the agent through any
listed release rather than one release's words.

Auto mode shows **notices** before an action it cannot check through a gateway, each
going on with Enter; their words change between releases (the known variants are the
screen fixtures `claude_*_auto_mode_notice`). A **permission prompt** asks "Do you want
to proceed?" (default No). After a notice, 2.1.332 asks; 2.1.300 runs the action itself.
"""

from __future__ import annotations

import re

NOTICE = "notice"
PERMISSION = "permission"
PERMISSION_QUESTION = "Do you want to proceed"
# The first line of each notice seen, per release (fixtures in tests/fixtures/screens).
KNOWN_NOTICES = {"2.1.300": "We're changing auto mode",
                 "2.1.332": "Auto mode can't check actions in this session"}
_GOES_ON_WITH_ENTER = re.compile(r"^\s*Enter to (?:continue|stay)\b", re.MULTILINE)


def dialog_kind(screen: str) -> str | None:
    """NOTICE, PERMISSION, or None when the screen asks nothing of these kinds."""
    if PERMISSION_QUESTION in screen:
        return PERMISSION
    if _GOES_ON_WITH_ENTER.search(screen):
        return NOTICE
    return None
