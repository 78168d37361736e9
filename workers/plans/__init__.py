"""Team plans: a room's plan and its agents' setup, shared as a git repository without
secrets (`export`), set up on a partner's machine (`install`) and kept current
(`update`)."""
