# One image for the migrate, api and worker services of docker-compose.yml.
# The CUDA runtime comes with PyTorch's wheels; the host needs the NVIDIA container toolkit.
# Installed from autotune's wheel, as users install it: nothing runs from a checkout.
#
# Build arguments, for machines without a registry or an index (tests/install/compose_smoke.sh):
#   BASE_IMAGE  any Debian-like image with python3 (3.11 or newer) and its venv module
#               (default: the official Python image);
#   WHEELS      a folder of the build context holding every wheel the install needs; when it
#               holds any, pip installs from it alone, otherwise from PyPI.
ARG BASE_IMAGE=python:3.11-slim

FROM ${BASE_IMAGE} AS build
ARG WHEELS=.no-wheels
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# pyproject.toml makes the wildcard's folder optional: COPY needs one source that exists.
COPY pyproject.toml ${WHEELS}/*.whl /wheels/
# The dependencies in a layer of their own, rebuilt only when pyproject.toml or the wheels
# change, not on every change to autotune's code. A virtual environment: the same on the
# official image and on a distribution's Python, whose own packages pip must not touch.
RUN if ls /wheels/*.whl >/dev/null 2>&1; then export PIP_NO_INDEX=1 PIP_FIND_LINKS=/wheels; fi \
    && python3 -m venv /opt/autotune \
    && python3 -c 'import tomllib; p = tomllib.load(open("/wheels/pyproject.toml", "rb"))["project"]; print("\n".join(p["dependencies"] + p["optional-dependencies"]["postgres"]))' \
        > /wheels/requirements.txt \
    && /opt/autotune/bin/pip install -r /wheels/requirements.txt
WORKDIR /src
COPY README.md ./
COPY autotune ./autotune
COPY api ./api
# Alembic's scripts ship inside the wheel as autotune.migrations.
COPY migrations ./migrations
RUN if ls /wheels/*.whl >/dev/null 2>&1; then export PIP_NO_INDEX=1 PIP_FIND_LINKS=/wheels; fi \
    && cp /wheels/pyproject.toml . \
    && /opt/autotune/bin/pip wheel --no-deps -w /dist . \
    && /opt/autotune/bin/pip install --no-deps /dist/autotune-*.whl

# Only the installed environment reaches the image: no wheels, no sources, no build tools.
FROM ${BASE_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PATH=/opt/autotune/bin:$PATH
COPY --from=build /opt/autotune /opt/autotune

# Training scripts are mounted here; workers probe them at the path the study was created with.
WORKDIR /workspace
ENTRYPOINT []
CMD ["autotune", "--help"]
