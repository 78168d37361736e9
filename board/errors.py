"""Typed errors a user can meet; the CLI turns each into one line on stderr.

The one error root of bullpen: git (`worktrees.errors`) and tmux (`workers.tmux.server`)
errors derive from these classes, so every fault a user can see carries its
`exit_status` (1: a failure, 2: bad input, nothing changed). Stdlib only: it is the one
module of `board` that `worktrees` may import.
"""


class BullpenError(Exception):
    """A failure that is not the caller's fault (exit status 1)."""

    exit_status = 1


class BadInput(BullpenError):
    """The caller asked for something invalid (exit status 2); nothing was changed."""

    exit_status = 2


class NotFound(BadInput):
    """An unknown session, task, note or file."""


class Refused(BadInput):
    """A valid request that the rules forbid (a cycle, a lost claim, a wrong token)."""


class Revoked(Refused):
    """This machine's login to a shared room was revoked (`bullpen machines revoke`)."""


class StoreFault(BullpenError):
    """The store cannot be used right now (exit 1): disk full, read-only, damaged, or a
    PostgreSQL server down or unreachable. Not the request's fault; worth a retry."""
