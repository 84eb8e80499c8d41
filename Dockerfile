# tracediff in a container: docs/operations.md, "Install (wheel, Docker, systemd)".
#   docker build -t tracediff .
#   docker run -p 8000:8000 -v tracediff-data:/data \
#     -e TRACEDIFF_ADMIN_TOKENS=ops:... -e TRACEDIFF_INGEST_TOKENS=shipper:... -e TRACEDIFF_READ_TOKENS=team:... tracediff
# tests/test_package.py builds the wheel from the files copied below, installs it, and runs the CMD with
# the ENV of this file (no container runtime is available where the tests run).

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md LICENSE ./
COPY webapp webapp
COPY templates templates
COPY static static
COPY sample_traces sample_traces
COPY docs docs
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /dist .

FROM python:3.11-slim
RUN useradd --system --uid 10001 --create-home --home-dir /data tracediff
COPY --from=build /dist /dist
# with the PostgreSQL extra, so one image serves a SQLite volume or a postgresql:// URL (docker-compose.yml)
RUN pip install --no-cache-dir "$(ls /dist/*.whl)[postgres]" && rm -rf /dist
USER tracediff
WORKDIR /data
ENV TRACEDIFF_DATABASE=/data/tracediff.db TRACEDIFF_PORT=8000 PYTHONUNBUFFERED=1
# the database, its -wal and -shm files and its .lock: keep them on a volume, never in the image
VOLUME /data
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/v1/health', timeout=4)"]
# 0.0.0.0 inside the container: serve refuses it unless tokens are set (or TRACEDIFF_ALLOW_OPEN=1)
CMD ["tracediff", "serve", "--host", "0.0.0.0"]
