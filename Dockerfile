# One image for the migrate, api and worker services of docker-compose.yml.
# The CUDA runtime comes with PyTorch's wheels; the host needs the NVIDIA container toolkit.
# Installed from autotune's wheel, as users install it: nothing runs from a checkout.
#
# Build arguments, for machines without a registry or an index (tests/install/compose_smoke.sh):
#   BASE_IMAGE  any Debian-like image with python3 and its venv module (default: the official
#               Python image);
#   WHEELS      a folder of the build context holding every wheel the install needs; when it
#               holds any, pip installs from it alone (--no-index), otherwise from PyPI.
ARG BASE_IMAGE=python:3.11-slim

FROM ${BASE_IMAGE} AS wheel
ARG WHEELS=.no-wheels
WORKDIR /src
# pyproject.toml makes the wildcard's folder optional: COPY needs one source that exists.
COPY pyproject.toml ${WHEELS}/*.whl /wheels/
COPY README.md ./
COPY autotune ./autotune
COPY api ./api
# Alembic's scripts ship inside the wheel as autotune.migrations.
COPY migrations ./migrations
RUN cp /wheels/pyproject.toml . && python3 -m venv /opt/build \
    && if ls /wheels/*.whl >/dev/null 2>&1; then set -- --no-index --find-links /wheels; fi \
    && /opt/build/bin/pip wheel --no-cache-dir --no-deps "$@" -w /dist .

FROM ${BASE_IMAGE}
ARG WHEELS=.no-wheels
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PATH=/opt/autotune/bin:$PATH
COPY --from=wheel /dist /dist
COPY pyproject.toml ${WHEELS}/*.whl /wheels/
# A virtual environment: the same on the official image and on a distribution's Python, whose
# system site-packages pip must not touch.
RUN python3 -m venv /opt/autotune \
    && if ls /wheels/*.whl >/dev/null 2>&1; then set -- --no-index --find-links /wheels; fi \
    && pip install "$@" "$(ls /dist/autotune-*.whl)[postgres]" \
    && rm -rf /dist /wheels

# Training scripts are mounted here; workers probe them at the path the study was created with.
WORKDIR /workspace
ENTRYPOINT []
CMD ["autotune", "--help"]
