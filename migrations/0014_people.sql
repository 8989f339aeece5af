-- +goose Up
-- Playing with people: follows and blocks, table chat with its reports and
-- mutes, moderation (an admin role, silenced and disabled accounts, a log of
-- every moderation action) and deleted accounts.

ALTER TABLE users
    ADD COLUMN admin          boolean     NOT NULL DEFAULT false,
    -- silenced_until: no chat from this account until then.
    ADD COLUMN silenced_until timestamptz,
    -- disabled_at: a moderator closed the account; it cannot log in.
    ADD COLUMN disabled_at    timestamptz,
    -- deleted_at: its owner deleted it; the row stays, renamed and emptied,
    -- so that finished games and ratings keep their seat.
    ADD COLUMN deleted_at     timestamptz;

CREATE TABLE follows (
    follower_id bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    followee_id bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (follower_id, followee_id),
    CHECK (follower_id <> followee_id)
);
CREATE INDEX follows_followee ON follows (followee_id);

CREATE TABLE blocks (
    blocker_id bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    blocked_id bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);
CREATE INDEX blocks_blocked ON blocks (blocked_id);

-- Table chat: the players' chat and the spectators' chat of a game.
CREATE TABLE chat_messages (
    id         bigserial   PRIMARY KEY,
    game_id    bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id    bigint      NOT NULL REFERENCES users (id),
    channel    text        NOT NULL CHECK (channel IN ('players', 'spectators')),
    body       text        NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
    created_at timestamptz NOT NULL,
    -- hidden_at: a moderator hid the message; it shows as removed.
    hidden_at  timestamptz,
    hidden_by  bigint      REFERENCES users (id)
);
CREATE INDEX chat_messages_game ON chat_messages (game_id, channel, id);
CREATE INDEX chat_messages_user ON chat_messages (user_id, created_at);

-- A person who muted a game's chat for themselves.
CREATE TABLE chat_mutes (
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game_id    bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, game_id)
);

CREATE TABLE chat_reports (
    id          bigserial   PRIMARY KEY,
    message_id  bigint      NOT NULL REFERENCES chat_messages (id) ON DELETE CASCADE,
    reporter_id bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    reason      text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL,
    -- resolved_at: a moderator acted on it or dismissed it.
    resolved_at timestamptz,
    resolved_by bigint      REFERENCES users (id),
    UNIQUE (message_id, reporter_id)
);
CREATE INDEX chat_reports_open ON chat_reports (created_at) WHERE resolved_at IS NULL;

-- Every moderation action, who took it and on whom.
CREATE TABLE moderation_log (
    id          bigserial   PRIMARY KEY,
    -- admin_id is NULL for actions from the command line.
    admin_id    bigint      REFERENCES users (id),
    action      text        NOT NULL,
    target_user bigint      REFERENCES users (id),
    message_id  bigint      REFERENCES chat_messages (id) ON DELETE SET NULL,
    note        text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL
);
CREATE INDEX moderation_log_at ON moderation_log (created_at DESC);

-- +goose Down
DROP TABLE moderation_log;
DROP TABLE chat_reports;
DROP TABLE chat_mutes;
DROP TABLE chat_messages;
DROP TABLE blocks;
DROP TABLE follows;
ALTER TABLE users DROP COLUMN deleted_at, DROP COLUMN disabled_at, DROP COLUMN silenced_until, DROP COLUMN admin;
