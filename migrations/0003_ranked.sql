-- +goose Up
ALTER TABLE users
    ADD COLUMN rating       double precision NOT NULL DEFAULT 1500,
    ADD COLUMN ranked_games int              NOT NULL DEFAULT 0,
    ADD COLUMN ranked_wins  int              NOT NULL DEFAULT 0;
CREATE INDEX users_ladder ON users (rating DESC, id) WHERE ranked_games > 0;

-- Every rating change, kept so history is never recomputed.
CREATE TABLE rating_changes (
    id         bigserial        PRIMARY KEY,
    user_id    bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game_id    bigint           NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    before     double precision NOT NULL,
    after      double precision NOT NULL,
    place      int              NOT NULL,
    players    int              NOT NULL,
    created_at timestamptz      NOT NULL,
    UNIQUE (user_id, game_id)
);
CREATE INDEX rating_changes_user ON rating_changes (user_id, created_at);

-- Players waiting for a ranked table. A matched row keeps the game until
-- the player has been sent to it.
CREATE TABLE ranked_queue (
    user_id    bigint      PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    sizes      int[]       NOT NULL,
    pace       text        NOT NULL CHECK (pace IN ('live', 'correspondence')),
    joined_at  timestamptz NOT NULL,
    game_id    bigint      REFERENCES games (id) ON DELETE SET NULL,
    matched_at timestamptz
);
CREATE INDEX ranked_queue_waiting ON ranked_queue (pace) WHERE game_id IS NULL;

-- +goose Down
DROP TABLE ranked_queue;
DROP TABLE rating_changes;
DROP INDEX users_ladder;
ALTER TABLE users DROP COLUMN ranked_wins, DROP COLUMN ranked_games, DROP COLUMN rating;
