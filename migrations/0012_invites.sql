-- +goose Up
-- Challenges by name: a player at an open table invites someone by their
-- name; the invitee accepts (and takes a seat) or declines.
CREATE TABLE invites (
    id          bigserial   PRIMARY KEY,
    game_id     bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    from_user   bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    to_user     bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status      text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'declined')),
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    UNIQUE (game_id, to_user)
);
CREATE INDEX invites_to ON invites (to_user, expires_at) WHERE status = 'open';

-- +goose Down
DROP TABLE invites;
