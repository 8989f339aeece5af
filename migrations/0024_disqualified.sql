-- +goose Up
-- A player marked for unfair play is disqualified from the rated events
-- of the last 90 days (docs/fair-play.md): their line stays, unranked,
-- and every table they sat at is scored again with them counted last.
-- The games' own placings (game_seats.place) are never changed, so an
-- undone mark scores the event again from them as it first was.
ALTER TABLE tournament_players
    ADD COLUMN disqualified_by bigint REFERENCES fairplay_decisions (id);
CREATE INDEX tournament_players_disqualified ON tournament_players (disqualified_by) WHERE disqualified_by IS NOT NULL;

-- +goose Down
DROP INDEX tournament_players_disqualified;
ALTER TABLE tournament_players DROP COLUMN disqualified_by;
