-- +goose Up
-- Who watches which game, kept by each server instance in memory and
-- written here in one statement every few seconds: one row per instance,
-- game and user (0 for visitors, who have no account), with the number of
-- open event streams. Rows of an instance that stopped writing grow old and
-- are no longer counted.
DROP TABLE presence;
CREATE TABLE stream_presence (
    instance text        NOT NULL,
    game_id  bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id  bigint      NOT NULL,
    streams  int         NOT NULL CHECK (streams > 0),
    seen_at  timestamptz NOT NULL,
    PRIMARY KEY (game_id, user_id, instance)
);
CREATE INDEX stream_presence_instance ON stream_presence (instance);
CREATE INDEX stream_presence_user ON stream_presence (user_id, game_id) WHERE user_id <> 0;

-- +goose Down
DROP TABLE stream_presence;
CREATE TABLE presence (
    stream_id  text        PRIMARY KEY,
    game_id    bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id    bigint      REFERENCES users (id) ON DELETE CASCADE,
    seen_at    timestamptz NOT NULL
);
CREATE INDEX presence_game ON presence (game_id, seen_at);
