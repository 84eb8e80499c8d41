"""Running the app.

The server and its workers, logs, counters, and the background loops (analyser, sender)."""
