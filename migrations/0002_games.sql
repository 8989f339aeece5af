-- +goose Up
CREATE TABLE games (
    id           bigserial   PRIMARY KEY,
    creator_id   bigint      NOT NULL REFERENCES users (id),
    status       text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'playing', 'finished', 'cancelled')),
    -- engine.Options as JSON; options->>'players' is the number of seats.
    options      jsonb       NOT NULL,
    seats        int         NOT NULL CHECK (seats BETWEEN 3 AND 7),
    public       boolean     NOT NULL,
    -- Private games are joined through /join/{invite_code}.
    invite_code  text        NOT NULL UNIQUE,
    ranked       boolean     NOT NULL DEFAULT false,
    pace         text        NOT NULL CHECK (pace IN ('live', 'correspondence')),
    -- Time a player has for one decision.
    turn_seconds int         NOT NULL CHECK (turn_seconds > 0),
    -- The engine's seed: every deal of the game follows from it. Secret.
    seed         bigint      NOT NULL,
    -- Actions applied; a player acts on the version they saw.
    version      int         NOT NULL DEFAULT 0,
    -- Whose decision it is, kept with each move for the lists.
    turn_seat    int,
    turn_user_id bigint      REFERENCES users (id),
    -- When the server must act for the seat to move: a bot's move, or the
    -- end of a player's time.
    due_at       timestamptz,
    created_at   timestamptz NOT NULL,
    started_at   timestamptz,
    finished_at  timestamptz,
    updated_at   timestamptz NOT NULL
);
CREATE INDEX games_open ON games (created_at DESC) WHERE status = 'open';
CREATE INDEX games_live ON games (updated_at DESC) WHERE status = 'playing';
CREATE INDEX games_due ON games (due_at) WHERE status = 'playing';
CREATE INDEX games_turn_user ON games (turn_user_id) WHERE status = 'playing';

-- A seat is a place at the table: a player's or a bot's. Seat numbers are
-- given when the game starts, in the order people joined.
CREATE TABLE game_seats (
    id        bigserial   PRIMARY KEY,
    game_id   bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat      int,
    user_id   bigint      REFERENCES users (id),
    bot_level text,
    joined_at timestamptz NOT NULL,
    timeouts  int         NOT NULL DEFAULT 0,
    abandoned boolean     NOT NULL DEFAULT false,
    total     int,
    place     int,
    CHECK ((user_id IS NULL) <> (bot_level IS NULL)),
    UNIQUE (game_id, seat),
    UNIQUE (game_id, user_id)
);
CREATE INDEX game_seats_user ON game_seats (user_id);

-- The append-only move log: one row per action, in order. The game's state
-- is rebuilt by replaying it over the deals drawn from the seed.
CREATE TABLE moves (
    game_id    bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq        int         NOT NULL,
    round      int         NOT NULL,
    seat       int         NOT NULL,
    kind       text        NOT NULL CHECK (kind IN ('take', 'pass', 'tiger')),
    card       int         NOT NULL,
    pot        int         NOT NULL,
    timeout    boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- Scored rounds (engine.RoundResult as JSON), written when a round ends.
CREATE TABLE rounds (
    game_id     bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    round       int         NOT NULL,
    result      jsonb       NOT NULL,
    finished_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, round)
);

-- Personal API tokens; only the SHA-256 of a token is kept.
CREATE TABLE api_tokens (
    id           bigserial   PRIMARY KEY,
    user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text        NOT NULL,
    token_hash   bytea       NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

-- Open event streams, one row each, refreshed while open: who is watching a
-- game, across every server instance.
CREATE TABLE presence (
    stream_id  text        PRIMARY KEY,
    game_id    bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id    bigint      REFERENCES users (id) ON DELETE CASCADE,
    seen_at    timestamptz NOT NULL
);
CREATE INDEX presence_game ON presence (game_id, seen_at);

-- +goose Down
DROP TABLE presence;
DROP TABLE api_tokens;
DROP TABLE rounds;
DROP TABLE moves;
DROP TABLE game_seats;
DROP TABLE games;
