-- +goose Up
-- A bot at a table has a number that names it ("Club bot 2") from the
-- lobby to the end, and into a rematch, whatever seat it takes.
ALTER TABLE game_seats ADD COLUMN bot_number int;
-- Seated bots keep the name they had (their seat's number); bots in a
-- lobby are numbered in the order they came.
UPDATE game_seats SET bot_number = seat + 1 WHERE bot_level IS NOT NULL AND seat IS NOT NULL;
UPDATE game_seats s SET bot_number = n.k
FROM (SELECT id, row_number() OVER (PARTITION BY game_id ORDER BY joined_at, id) AS k
      FROM game_seats WHERE bot_level IS NOT NULL AND seat IS NULL) n
WHERE s.id = n.id;
ALTER TABLE game_seats ADD CONSTRAINT game_seats_bot_number CHECK ((bot_level IS NULL) = (bot_number IS NULL));

-- +goose Down
ALTER TABLE game_seats DROP COLUMN bot_number;
