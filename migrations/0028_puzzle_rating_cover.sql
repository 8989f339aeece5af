-- +goose Up
-- The next puzzle is found by walking the rating index outwards from the
-- solver's rating past the puzzles they tried and those of their own games
-- (docs/puzzles.md, "How fast"). With the game and the themes in the index
-- the walk reads no table rows: the old index made it fetch each puzzle's
-- row, data and all, to test it.
CREATE INDEX puzzles_rating_cover ON puzzles (rating, id) INCLUDE (game_id, themes);
DROP INDEX puzzles_rating;

-- +goose Down
CREATE INDEX puzzles_rating ON puzzles (rating, id);
DROP INDEX puzzles_rating_cover;
