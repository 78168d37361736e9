"""`bullpen serve`: a small web page for a phone, answering for the human from anywhere.

It shows what needs the human (questions with their choices, held notes, blocked cards,
budgets), the sessions, the note stream, and a form for a note. It does three things
and nothing else: answer a question (`RoomControl.answer`, the screen read again),
send a note, move a card; each is audited as `operator@web`. Starlette and uvicorn are
the optional extra `bullpen[serve]`: a room without them never imports this package's
server.
"""
