-- +goose Up
-- Leavers (docs/fair-play.md): a player may leave a game in play, which is
-- a move of the log; every account has a reliability figure from its last
-- 100 finished games; abandoning rated games again and again brings
-- growing pauses from rated play, which the player sees and may appeal.

ALTER TABLE moves DROP CONSTRAINT moves_kind_check,
    ADD CONSTRAINT moves_kind_check CHECK (kind IN ('take', 'pass', 'tiger', 'leave'));

-- decisions: the decisions that came to the seat's player while they held
-- it (theirs and their timeouts, not the server's once they had abandoned
-- it), written when the game ends. left_at: when they left the game.
ALTER TABLE game_seats ADD COLUMN decisions int NOT NULL DEFAULT 0,
    ADD COLUMN left_at timestamptz;

-- Finished games before this migration: every move of a seat up to its
-- third timeout (after it the server played the seat).
WITH timed AS (
    SELECT game_id, seat, seq, row_number() OVER (PARTITION BY game_id, seat ORDER BY seq) AS k
    FROM moves WHERE timeout
), cut AS (
    SELECT game_id, seat, seq FROM timed WHERE k = 3
), counted AS (
    SELECT m.game_id, m.seat, count(*) AS n
    FROM moves m LEFT JOIN cut c ON c.game_id = m.game_id AND c.seat = m.seat
    WHERE c.seq IS NULL OR m.seq <= c.seq
    GROUP BY m.game_id, m.seat
)
UPDATE game_seats s SET decisions = counted.n
FROM counted, games g
WHERE counted.game_id = s.game_id AND counted.seat = s.seat AND g.id = s.game_id AND g.status = 'finished' AND s.user_id IS NOT NULL;

-- min_reliability: the share of games finished (in percent) a player
-- needs to join the table, if its creator asked for one.
ALTER TABLE games ADD COLUMN min_reliability int CHECK (min_reliability BETWEEN 1 AND 100);

-- Each account's reliability over its last 100 finished games, written in
-- the transaction that finishes a game of theirs: games counted, those
-- finished without abandoning, timeouts and decisions.
CREATE TABLE reliability (
    user_id    bigint      PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    games      int         NOT NULL,
    kept       int         NOT NULL,
    timeouts   int         NOT NULL,
    decisions  int         NOT NULL,
    updated_at timestamptz NOT NULL
);
INSERT INTO reliability (user_id, games, kept, timeouts, decisions, updated_at)
SELECT user_id, count(*), count(*) FILTER (WHERE NOT abandoned), sum(timeouts), sum(decisions), now()
FROM (
    SELECT s.user_id, s.abandoned, s.timeouts, s.decisions,
        row_number() OVER (PARTITION BY s.user_id ORDER BY g.finished_at DESC, g.id DESC) AS k
    FROM game_seats s JOIN games g ON g.id = s.game_id
    WHERE g.status = 'finished' AND s.user_id IS NOT NULL
) last
WHERE k <= 100
GROUP BY user_id;
CREATE INDEX game_seats_user_finished ON game_seats (user_id, game_id) WHERE user_id IS NOT NULL;

-- Abandonments of rated games: each with its place in the player's run of
-- them (step 1: the first after 30 days without one) and the pause from
-- rated play it brought (NULL: none). A player may appeal one, once; a
-- moderator forgives it (it counts no more and its pause ends) or upholds
-- it, and either is in the moderation log.
CREATE TABLE abandonments (
    id           bigserial   PRIMARY KEY,
    user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game_id      bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    how          text        NOT NULL CHECK (how IN ('timeouts', 'left')),
    at           timestamptz NOT NULL,
    step         int         NOT NULL CHECK (step >= 1),
    pause_until  timestamptz,
    appeal       text,
    appealed_at  timestamptz,
    answer       text        CHECK (answer IN ('forgiven', 'upheld')),
    answer_note  text        NOT NULL DEFAULT '',
    answered_at  timestamptz,
    answered_by  bigint      REFERENCES users (id) ON DELETE SET NULL,
    UNIQUE (user_id, game_id),
    CHECK ((appeal IS NULL) = (appealed_at IS NULL)),
    CHECK ((answer IS NULL) = (answered_at IS NULL))
);
CREATE INDEX abandonments_user ON abandonments (user_id, at DESC);
CREATE INDEX abandonments_appeals ON abandonments (appealed_at) WHERE appealed_at IS NOT NULL AND answered_at IS NULL;

-- +goose Down
DROP TABLE abandonments;
DROP INDEX game_seats_user_finished;
DROP TABLE reliability;
ALTER TABLE games DROP COLUMN min_reliability;
ALTER TABLE game_seats DROP COLUMN left_at, DROP COLUMN decisions;
DELETE FROM moves WHERE kind = 'leave';
ALTER TABLE moves DROP CONSTRAINT moves_kind_check,
    ADD CONSTRAINT moves_kind_check CHECK (kind IN ('take', 'pass', 'tiger'));
