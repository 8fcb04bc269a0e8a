# PostgreSQL for the compose smoke test, where no registry serves postgres:15: Debian's own
# postgresql-15 (bookworm's major, the same as docker-compose.yml's default image), started
# the way the official image starts, from the same environment variables and data folder.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
# The official image stops on SIGINT (fast shutdown): no waiting for clients to leave.
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["/bin/sh", "/usr/local/bin/postgres-entrypoint.sh"]
