# One image for the migrate, api and worker services of docker-compose.yml.
# The CUDA runtime comes with PyTorch's wheels; the host needs the NVIDIA container toolkit.
# Installed from autotune's wheel, as users install it: nothing runs from a checkout.
FROM python:3.11-slim AS wheel
WORKDIR /src
COPY pyproject.toml README.md ./
COPY autotune ./autotune
COPY api ./api
# Alembic's scripts ship inside the wheel as autotune.migrations.
COPY migrations ./migrations
RUN pip wheel --no-cache-dir --no-deps -w /dist .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
COPY --from=wheel /dist /dist
RUN pip install "$(ls /dist/autotune-*.whl)[postgres]" && rm -rf /dist

# Training scripts are mounted here; workers probe them at the path the study was created with.
WORKDIR /workspace
ENTRYPOINT []
CMD ["autotune", "--help"]
