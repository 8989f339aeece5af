-- +goose Up
-- Puzzles (docs/puzzles.md): positions of finished public games where the
-- strong search, from the deciding seat's view only, finds one decision
-- clearly better. Mined in the background, a game at a time, claimed from
-- puzzle_mining (a lease: a worker that dies loses nothing).
CREATE TABLE puzzle_mining (
    game_id     bigint      PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    status      text        NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'done', 'failed')),
    lease_until timestamptz,
    attempts    int         NOT NULL DEFAULT 0,
    found       int         NOT NULL DEFAULT 0,
    last_error  text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL
);
CREATE INDEX puzzle_mining_todo ON puzzle_mining (created_at) WHERE status = 'queued';

CREATE TABLE puzzles (
    id          bigserial        PRIMARY KEY,
    game_id     bigint           NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    -- The decision's index among the game's actions; seat decides there.
    move        int              NOT NULL,
    seat        int              NOT NULL,
    best        text             NOT NULL CHECK (best IN ('take', 'pass')),
    steps       int              NOT NULL CHECK (steps >= 1),
    themes      text[]           NOT NULL,
    margin      double precision NOT NULL,
    -- puzzles.Puzzle as JSON: the line, each step's estimates.
    data        jsonb            NOT NULL,
    -- Glicko-2 (package glicko2): the puzzle plays every attempt.
    rating      double precision NOT NULL DEFAULT 1500,
    rd          double precision NOT NULL DEFAULT 350,
    volatility  double precision NOT NULL DEFAULT 0.06,
    attempts    int              NOT NULL DEFAULT 0,
    solved      int              NOT NULL DEFAULT 0,
    created_at  timestamptz      NOT NULL,
    UNIQUE (game_id, move)
);
CREATE INDEX puzzles_rating ON puzzles (rating, id);
CREATE INDEX puzzles_themes ON puzzles USING gin (themes);

-- A solver's puzzle rating, streak and counts (members; guests solve
-- without one).
CREATE TABLE puzzle_ratings (
    user_id     bigint           PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    rating      double precision NOT NULL,
    rd          double precision NOT NULL,
    volatility  double precision NOT NULL,
    attempts    int              NOT NULL DEFAULT 0,
    solved      int              NOT NULL DEFAULT 0,
    streak      int              NOT NULL DEFAULT 0,
    best_streak int              NOT NULL DEFAULT 0,
    updated_at  timestamptz      NOT NULL
);

-- One attempt per solver and puzzle: open while a line of several steps
-- is being answered, then solved or failed, with both ratings before and
-- after.
CREATE TABLE puzzle_attempts (
    id            bigserial        PRIMARY KEY,
    user_id       bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    puzzle_id     bigint           NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    status        text             NOT NULL CHECK (status IN ('open', 'solved', 'failed')),
    -- Steps answered right so far.
    progress      int              NOT NULL DEFAULT 0,
    answers       text[]           NOT NULL DEFAULT '{}',
    rating_before double precision,
    rating_after  double precision,
    puzzle_before double precision,
    puzzle_after  double precision,
    created_at    timestamptz      NOT NULL,
    finished_at   timestamptz,
    UNIQUE (user_id, puzzle_id)
);
CREATE INDEX puzzle_attempts_user ON puzzle_attempts (user_id, created_at DESC);

-- The puzzle of the day, chosen at the day's first request.
CREATE TABLE puzzle_days (
    day       date   PRIMARY KEY,
    puzzle_id bigint NOT NULL UNIQUE REFERENCES puzzles (id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE puzzle_days;
DROP TABLE puzzle_attempts;
DROP TABLE puzzle_ratings;
DROP TABLE puzzles;
DROP TABLE puzzle_mining;
