# syntax=docker/dockerfile:1
# One image for every role: `tessera api` (default), `tessera worker`, `tessera migrate`, and the
# admin commands (`tessera tenants create NAME`, ...). Settings come from TESSERA_* variables.
#
#   docker build -t tessera .
#   docker run --rm -e TESSERA_DATABASE_URL=... -e TESSERA_REDIS_URL=... tessera migrate

ARG PYTHON_IMAGE=python:3.11-slim

# --- builder: install the project and its dependencies into a self-contained venv -------------
FROM ${PYTHON_IMAGE} AS builder

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
RUN pip install --upgrade pip

WORKDIR /src
# Only what the package needs (README.md is the project's readme in pyproject.toml), the generated
# SDK the client commands run on, and the lock that fixes every dependency's version and hash.
COPY pyproject.toml README.md requirements.lock ./
COPY app ./app
COPY workers ./workers
COPY migrations ./migrations
COPY sdk/python/tessera_client ./sdk/python/tessera_client
COPY sdk/python/tessera ./sdk/python/tessera
# A plain install, not the `embedded` extra: in a container Postgres and Redis are real servers.
# The lock is a constraint: the runtime dependencies get its versions and hashes, the dev ones
# are not installed. Hashed constraints turn on pip's hash checking for every requirement, and a
# source folder cannot be hashed, so the project goes in as its wheel with that wheel's hash.
# The checks run outside /src so they import the installed package.
# TESSERA_EXTRAS names extras to install too, e.g. `--build-arg TESSERA_EXTRAS=embeddings` for the
# local embedding model (TESSERA_EMBEDDINGS=local); their versions come from the lock as well.
ARG TESSERA_EXTRAS=""
RUN pip wheel --no-deps --wheel-dir /tmp/dist . \
 && wheel=$(echo /tmp/dist/tessera-*.whl) \
 && echo "tessera${TESSERA_EXTRAS:+[$TESSERA_EXTRAS]} @ file://$wheel --hash=sha256:$(sha256sum "$wheel" | cut -d' ' -f1)" > /tmp/self.txt \
 && pip install -c requirements.lock -r /tmp/self.txt \
 && rm -r /tmp/dist /tmp/self.txt \
 && cd /tmp \
 && tessera --help > /dev/null \
 && python -c "import tessera_client" \
 && python -c "import migrations, pathlib, sys; d = pathlib.Path(migrations.__file__).parent; sys.exit(0 if (d / 'script.py.mako').is_file() and (d / 'versions').is_dir() else 'Alembic scripts missing from the install')"

# --- runtime: the venv on a clean slim base, run as an unprivileged user -----------------------
FROM ${PYTHON_IMAGE} AS runtime

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1

RUN groupadd --system --gid 10001 tessera \
 && useradd --system --uid 10001 --gid tessera --home-dir /app --create-home \
        --shell /usr/sbin/nologin tessera

# Same path as in the builder: the venv's scripts carry /opt/venv/bin/python in their shebang.
COPY --from=builder /opt/venv /opt/venv

WORKDIR /app
USER tessera

EXPOSE 8000

# The API's liveness probe; slim has no curl, so Python's urllib does the request (non-2xx
# raises, so the exit status is non-zero). The worker and migrate containers override or disable
# this in docker-compose.yml.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/livez', timeout=4)"]

# Exec form, so SIGTERM reaches `tessera` (directly as PID 1, or through `--init` / compose's
# `init: true`); uvicorn and arq both shut down on it.
ENTRYPOINT ["tessera"]
CMD ["api", "--host", "0.0.0.0", "--port", "8000"]
