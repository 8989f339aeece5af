-- +goose Up
-- Throttling of password checks (log-in, and the settings forms that ask for
-- the current password): one counter per key ("user:7", "login:name",
-- "ip:203.0.113.9", "reauth:7") over a window that starts at the key's first
-- failure. An attempt is counted before its password is hashed, in one
-- INSERT ... ON CONFLICT statement, so parallel guesses cannot all pass the
-- check; an attempt whose password was right is given back.
CREATE TABLE throttle (
    key         text        PRIMARY KEY,
    attempts    int         NOT NULL,
    window_from timestamptz NOT NULL
);
CREATE INDEX throttle_window_from ON throttle (window_from);

-- login_failures is no longer written; it stays until no instance of the
-- previous release runs, and a later migration drops it.

-- +goose Down
DROP TABLE throttle;
