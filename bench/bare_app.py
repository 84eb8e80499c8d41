"""The baseline web app: Flask parses the JSON body and answers, nothing else (no validation, no database)."""
import orjson
from flask import Flask, request

app = Flask(__name__)


@app.post("/ingest")
def ingest():
    """Parse an NDJSON body and acknowledge its lines."""
    lines = [orjson.loads(line) for line in request.get_data(cache=False).splitlines() if line.strip()]
    return {"accepted": len(lines), "duplicates": 0, "rejected": []}


@app.get("/health")
def health():
    return {"status": "ok"}
