"""aider: its screen (`screen`). Launched as it is: bullpen adds nothing to its command."""
