"""`bullpen demo`: a throwaway repository and three scripted agents acting out the promises.

`agents` holds the built-in agents (stdlib and `bullpen` CLI calls only, no LLM),
`steps` says what must happen and checks it in the store, `story` runs the whole thing.
"""
