"""Running the app: the server and its workers, logs, counters, and the background loops (analyser,
sender)."""
