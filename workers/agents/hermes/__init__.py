"""Hermes Agent: its screen (`screen`), its profile's config (`config`) and how bullpen
sets one up (`profile`, `files`), how a pane starts it (`launch`), and the
notebook-backed memory provider it loads (`memory`). Imports nothing itself: Hermes'
memory plugin loads `memory` by path, and the hook process must stay light."""
