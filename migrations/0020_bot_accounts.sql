-- +goose Up
-- Bot accounts (docs/bots.md): an account its owner turned, for good, into
-- a bot that plays through the API. It is never a person's account: it
-- plays casual games with people who choose to, and ranked games only with
-- other bots, from the bot queue. Its rating lives in the same columns as a
-- person's; the two ladders never mix because a bot never plays a person in
-- a rated game.
ALTER TABLE users
    ADD COLUMN bot       boolean     NOT NULL DEFAULT false,
    -- bot_since: when the account became a bot (kept for the record).
    ADD COLUMN bot_since timestamptz,
    ADD CONSTRAINT users_bot_not_guest CHECK (NOT (bot AND guest)),
    ADD CONSTRAINT users_bot_since CHECK (bot = (bot_since IS NOT NULL));
-- The bot ladder and the list of bot names read bots only (a few among
-- many people).
CREATE INDEX users_bots ON users (rating DESC, id) WHERE bot;

-- The queue has two pools: people wait for people, bots for bots, and the
-- matcher forms tables within a pool only.
ALTER TABLE ranked_queue
    ADD COLUMN pool text NOT NULL DEFAULT 'people' CHECK (pool IN ('people', 'bots'));
DROP INDEX ranked_queue_waiting;
CREATE INDEX ranked_queue_waiting ON ranked_queue (pool, pace) WHERE game_id IS NULL;

-- +goose Down
DROP INDEX ranked_queue_waiting;
CREATE INDEX ranked_queue_waiting ON ranked_queue (pace) WHERE game_id IS NULL;
ALTER TABLE ranked_queue DROP COLUMN pool;
DROP INDEX users_bots;
ALTER TABLE users DROP CONSTRAINT users_bot_since, DROP CONSTRAINT users_bot_not_guest, DROP COLUMN bot_since, DROP COLUMN bot;
