"""The human's side: the `bullpen` command line and the Textual dashboard.

Importing this package must stay cheap: Textual is imported only by the dashboard.
"""
