-- +goose Up
-- Games brought in as text in the notation (docs/notation.md): finished on
-- arrival, never rated, replayed and analysed like any other. Their deals
-- are those the text shows (engine.Setup as JSON), not drawn from a seed;
-- the seed column of an imported game is unused.
ALTER TABLE games
    ADD COLUMN imported boolean NOT NULL DEFAULT false,
    ADD COLUMN setup    jsonb,
    -- The text's tags (site, date, event, the ratings it gives, unknown
    -- tags), kept to write the game out again as it came in.
    ADD COLUMN import_tags jsonb,
    ADD CONSTRAINT games_imported_setup CHECK (imported = (setup IS NOT NULL)),
    ADD CONSTRAINT games_imported_unrated CHECK (NOT (imported AND ranked));
CREATE INDEX games_imported_by ON games (creator_id, created_at DESC) WHERE imported;

-- The seats of an imported game are names from the text, not accounts.
ALTER TABLE game_seats
    ADD COLUMN import_name text,
    ADD COLUMN import_bot  text,
    DROP CONSTRAINT game_seats_check,
    ADD CONSTRAINT game_seats_who CHECK (num_nonnulls(user_id, bot_level, import_name) = 1),
    ADD CONSTRAINT game_seats_import_bot CHECK (import_bot IS NULL OR import_name IS NOT NULL);

-- The open database: one file a month of every finished public game of
-- the site (imported games are not the site's), compressed notation, made
-- by background work once the month is over and again when a player of
-- one of its games deletes their account. Made in chunks, so that no one
-- value is large and a download streams.
CREATE TABLE archive_months (
    month        date        PRIMARY KEY CHECK (extract(day FROM month) = 1),
    -- pending: to be made (again); ready: the chunks are the file.
    status       text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready')),
    games        int         NOT NULL DEFAULT 0,
    rated        int         NOT NULL DEFAULT 0,
    bytes        bigint      NOT NULL DEFAULT 0,
    sha256       text        NOT NULL DEFAULT '',
    made_at      timestamptz,
    -- Background work holds a pending month until then (several instances
    -- make each file once).
    lease_until  timestamptz,
    -- Counts claims and marks: a file made under an older claim (the month
    -- marked again meanwhile) is not saved.
    claim        bigint      NOT NULL DEFAULT 0,
    attempts     int         NOT NULL DEFAULT 0,
    last_error   text        NOT NULL DEFAULT ''
);
CREATE TABLE archive_chunks (
    month date  NOT NULL REFERENCES archive_months (month) ON DELETE CASCADE,
    seq   int   NOT NULL,
    data  bytea NOT NULL,
    PRIMARY KEY (month, seq)
);
CREATE INDEX games_archive ON games (finished_at, id) WHERE status = 'finished' AND public AND NOT imported;

-- +goose Down
DROP INDEX games_archive;
DROP TABLE archive_chunks;
DROP TABLE archive_months;
DELETE FROM games WHERE imported;
ALTER TABLE game_seats
    DROP CONSTRAINT game_seats_import_bot,
    DROP CONSTRAINT game_seats_who,
    ADD CONSTRAINT game_seats_check CHECK ((user_id IS NULL) <> (bot_level IS NULL)),
    DROP COLUMN import_bot,
    DROP COLUMN import_name;
DROP INDEX games_imported_by;
ALTER TABLE games
    DROP CONSTRAINT games_imported_unrated,
    DROP CONSTRAINT games_imported_setup,
    DROP COLUMN import_tags,
    DROP COLUMN setup,
    DROP COLUMN imported;
