-- +goose Up
CREATE TABLE users (
    id            bigserial PRIMARY KEY,
    username      text        NOT NULL,
    email         text        NOT NULL,
    password_hash text        NOT NULL,
    email_verified_at timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- Server-side sessions: the cookie carries a random id; the table keeps its
-- SHA-256 only, so a copy of the table opens no session.
CREATE TABLE sessions (
    id_hash      bytea       PRIMARY KEY,
    user_id      bigint      REFERENCES users (id) ON DELETE CASCADE,
    data         jsonb       NOT NULL DEFAULT '{}',
    user_agent   text        NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);
CREATE INDEX sessions_user_id ON sessions (user_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- Failed log-ins, counted per account (or per name tried) and per IP, so that
-- throttling holds across server instances.
CREATE TABLE login_failures (
    id  bigserial   PRIMARY KEY,
    key text        NOT NULL,
    at  timestamptz NOT NULL
);
CREATE INDEX login_failures_key_at ON login_failures (key, at);

-- Keys the server generates once and shares between instances
-- (session signing keys when SESSION_SECRET is unset).
CREATE TABLE server_secrets (
    name       text        PRIMARY KEY,
    value      bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE server_secrets;
DROP TABLE login_failures;
DROP TABLE sessions;
DROP TABLE users;
