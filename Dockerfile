# One image for the migrate, api and worker services of docker-compose.yml.
# The CUDA runtime comes with PyTorch's wheels; the host needs the NVIDIA container toolkit.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /opt/autotune
COPY pyproject.toml README.md ./
COPY autotune ./autotune
COPY api ./api
COPY migrations ./migrations
# Editable: the Alembic migrations/ folder is found beside the package.
RUN pip install -e ".[postgres]"

# Training scripts are mounted here; workers probe them at the path the study was created with.
WORKDIR /workspace
ENTRYPOINT []
CMD ["autotune", "--help"]
