"""The service layer: game tables, their storage and the computer players that sit at them.

- :mod:`.journal` — what a table remembers: the seed and every accepted action, in order, so a
  game can be rebuilt exactly; and the events a browser is shown, built from South's view only.
- :mod:`.store` — the ``games`` table (SQLAlchemy 2; SQLite by default, any URL works).
- :mod:`.botpool` — computer players thinking off the event loop.
- :mod:`.tables` — one actor per game: applies actions strictly in order, stores each before it
  is broadcast, and drives the computer players at a human pace.
"""
