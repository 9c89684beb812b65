"""Pictures, text and replays of games: ``render`` (text), ``svg`` (the table as SVG or pixels) and
``replay`` (recorded games: read, check, show, write as one HTML page). Built on ``core`` only."""
