-- +goose Up
-- A puzzle the one-line heuristic (take when the pot pays for the card,
-- or it joins a run) answers right is "obvious": it starts lower
-- (docs/puzzles.md), and the puzzle of the day is one that is not.
ALTER TABLE puzzles ADD COLUMN obvious boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE puzzles DROP COLUMN obvious;
