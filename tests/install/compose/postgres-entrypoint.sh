#!/bin/sh
# What the official postgres image does at start, for the variables docker-compose.yml sets:
# a new data folder gets a cluster whose POSTGRES_USER has POSTGRES_PASSWORD and owns
# POSTGRES_DB; connections from the network need that password. Then postgres runs in front.
set -eu
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    chown postgres "$pwfile"
    as_postgres initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" --encoding=UTF8 \
        --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    if [ "$db" != postgres ]; then
        # A private socket: a health check must not find this short-lived server ready.
        init_socket="$(mktemp -d)"
        chown postgres "$init_socket"
        as_postgres pg_ctl -D "$PGDATA" -w start \
            -o "-c listen_addresses='' -c unix_socket_directories='$init_socket'" >/dev/null
        as_postgres createdb -h "$init_socket" -U "$user" "$db"
        as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
        rm -rf "$init_socket"
    fi
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups \
    postgres -D "$PGDATA" -c listen_addresses='*'
