"""Programs for people: ``play`` (play in the terminal or the browser) and ``web`` (the local play
server behind it)."""
