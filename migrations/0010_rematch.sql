-- +goose Up
-- "Play again": an offer made at a finished table to its people, their
-- answers, and the game it became.
CREATE TABLE rematches (
    game_id     bigint      PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    offered_by  bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    new_game_id bigint      REFERENCES games (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE TABLE rematch_answers (
    game_id     bigint      NOT NULL REFERENCES rematches (game_id) ON DELETE CASCADE,
    user_id     bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    accepted    boolean     NOT NULL,
    answered_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, user_id)
);

-- +goose Down
DROP TABLE rematch_answers;
DROP TABLE rematches;
