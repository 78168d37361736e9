"""Screen readers shared by every kind: generic programs and shells (each an `Adapter`),
the questions any program may ask (`questions`) and the pieces of full-screen agents'
screens (`tui`). Each agent kind's own reader is in its folder (`claude/screen.py` …)."""
