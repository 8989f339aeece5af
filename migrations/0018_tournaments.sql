-- +goose Up
-- Recurring events a moderator schedules: the server creates each next
-- event ahead of its start.
CREATE TABLE tournament_schedules (
    id           bigserial   PRIMARY KEY,
    created_by   bigint      REFERENCES users (id) ON DELETE SET NULL,
    kind         text        NOT NULL CHECK (kind IN ('arena', 'swiss')),
    name         text        NOT NULL,
    description  text        NOT NULL DEFAULT '',
    table_size   int         NOT NULL CHECK (table_size BETWEEN 3 AND 7),
    -- engine.Options of its games (without the player count).
    options      jsonb       NOT NULL,
    pace         text        NOT NULL CHECK (pace IN ('live', 'correspondence')),
    turn_seconds int         NOT NULL CHECK (turn_seconds > 0),
    minutes      int,
    rounds       int,
    max_players  int         NOT NULL,
    rated        boolean     NOT NULL,
    every_hours  int         NOT NULL CHECK (every_hours BETWEEN 1 AND 24 * 28),
    -- The start of the next event to create.
    next_at      timestamptz NOT NULL,
    active       boolean     NOT NULL DEFAULT true,
    created_at   timestamptz NOT NULL
);

-- A tournament: an arena (games for a while, players seated again as soon
-- as they are free) or a Swiss event (a fixed number of rounds).
CREATE TABLE tournaments (
    id           bigserial   PRIMARY KEY,
    kind         text        NOT NULL CHECK (kind IN ('arena', 'swiss')),
    name         text        NOT NULL,
    description  text        NOT NULL DEFAULT '',
    -- A moderator may hide a description (it is then not shown).
    description_hidden_by bigint REFERENCES users (id) ON DELETE SET NULL,
    creator_id   bigint      REFERENCES users (id) ON DELETE SET NULL,
    schedule_id  bigint      REFERENCES tournament_schedules (id) ON DELETE SET NULL,
    public       boolean     NOT NULL,
    -- A private event is reached by its link, which carries this code.
    code         text        NOT NULL UNIQUE,
    rated        boolean     NOT NULL,
    table_size   int         NOT NULL CHECK (table_size BETWEEN 3 AND 7),
    options      jsonb       NOT NULL,
    pace         text        NOT NULL CHECK (pace IN ('live', 'correspondence')),
    turn_seconds int         NOT NULL CHECK (turn_seconds > 0),
    starts_at    timestamptz NOT NULL,
    -- Arena: how long it seats players.
    minutes      int         CHECK (minutes IS NULL OR minutes BETWEEN 20 AND 180),
    -- Swiss: how many rounds, and the round being played (0 before).
    rounds       int         CHECK (rounds IS NULL OR rounds BETWEEN 3 AND 11),
    round        int         NOT NULL DEFAULT 0,
    -- How many may join.
    max_players  int         NOT NULL CHECK (max_players BETWEEN 3 AND 5000),
    status       text        NOT NULL DEFAULT 'upcoming' CHECK (status IN ('upcoming', 'running', 'finished', 'cancelled')),
    -- Each change of the standings or tables moves it on (the streams).
    version      int         NOT NULL DEFAULT 0,
    -- When the seating worker should look at the event next.
    due_at       timestamptz,
    created_at   timestamptz NOT NULL,
    started_at   timestamptz,
    finished_at  timestamptz,
    CHECK ((kind = 'arena') = (minutes IS NOT NULL)),
    CHECK ((kind = 'swiss') = (rounds IS NOT NULL))
);
CREATE INDEX tournaments_due ON tournaments (due_at) WHERE status IN ('upcoming', 'running');
CREATE INDEX tournaments_list ON tournaments (status, starts_at);
CREATE UNIQUE INDEX tournaments_schedule_start ON tournaments (schedule_id, starts_at) WHERE schedule_id IS NOT NULL;

-- A player of an event.
CREATE TABLE tournament_players (
    tournament_id bigint      NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    joined_at     timestamptz NOT NULL,
    -- active: seated when free; paused: not seated until back; withdrawn:
    -- out for good (the results stand).
    status        text        NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'withdrawn')),
    rating        double precision NOT NULL,
    -- The table the player sits at now (NULL: free). Not a foreign key:
    -- a wave sets it for every player it seats, and games are never
    -- deleted while their event runs.
    game_id       bigint,
    -- Since when a free player waits for a table (arena).
    free_since    timestamptz,
    -- Points in half points (pairing.Points), games, first places, byes,
    -- and the arena's streak mark: kept with each result.
    points        int         NOT NULL DEFAULT 0,
    games         int         NOT NULL DEFAULT 0,
    wins          int         NOT NULL DEFAULT 0,
    byes          int         NOT NULL DEFAULT 0,
    on_fire       boolean     NOT NULL DEFAULT false,
    -- The final rank, once the event is over.
    place         int,
    PRIMARY KEY (tournament_id, user_id)
);
CREATE INDEX tournament_players_user ON tournament_players (user_id);
-- (No index on game_id or free_since: seating a wave changes both for
-- every player seated, and without an index on them Postgres updates the
-- rows in place.)

-- An event's games (round: the Swiss round, or the arena's wave).
CREATE TABLE tournament_games (
    game_id       bigint      PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    tournament_id bigint      NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         int         NOT NULL,
    finished      boolean     NOT NULL DEFAULT false
);
CREATE INDEX tournament_games_event ON tournament_games (tournament_id, round);
CREATE INDEX tournament_games_running ON tournament_games (tournament_id) WHERE NOT finished;

-- What each game (or bye) gave each player: written once, in the
-- transaction that ends the game.
CREATE TABLE tournament_results (
    id            bigserial   PRIMARY KEY,
    tournament_id bigint      NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- NULL for a bye.
    game_id       bigint      REFERENCES games (id) ON DELETE CASCADE,
    round         int         NOT NULL,
    place         int,
    -- The placing points, and what they counted (doubled on a streak).
    points        int         NOT NULL,
    counted       int         NOT NULL,
    won           boolean     NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL,
    UNIQUE (tournament_id, user_id, game_id),
    UNIQUE (tournament_id, user_id, round)
);
CREATE INDEX tournament_results_event ON tournament_results (tournament_id, user_id, id);

ALTER TABLE games ADD COLUMN tournament_id bigint REFERENCES tournaments (id) ON DELETE SET NULL;
CREATE INDEX games_tournament ON games (tournament_id) WHERE tournament_id IS NOT NULL;

-- The tournament mails ("it starts", "your table is ready"), like the others.
ALTER TABLE users ADD COLUMN mail_tournament boolean NOT NULL DEFAULT true;
ALTER TABLE mail_outbox ADD COLUMN tournament_id bigint REFERENCES tournaments (id) ON DELETE CASCADE;

-- +goose Down
ALTER TABLE mail_outbox DROP COLUMN tournament_id;
ALTER TABLE users DROP COLUMN mail_tournament;
ALTER TABLE games DROP COLUMN tournament_id;
DROP TABLE tournament_results;
DROP TABLE tournament_games;
DROP TABLE tournament_players;
DROP TABLE tournaments;
DROP TABLE tournament_schedules;
