-- +goose Up
-- A game's moves lie in the heap among those of every game played at the
-- same time, a page for every move or two. The key now carries what a
-- finished game's text needs of each move, so that reading a game whole
-- (the open database's month files, a player's games file) walks the key
-- in order and reads no table pages (docs/database.md, "How fast"). The
-- key is rebuilt once here.
ALTER TABLE moves DROP CONSTRAINT moves_pkey,
    ADD CONSTRAINT moves_pkey PRIMARY KEY (game_id, seq) INCLUDE (round, seat, kind, card, pot, timeout);

-- +goose Down
ALTER TABLE moves DROP CONSTRAINT moves_pkey,
    ADD CONSTRAINT moves_pkey PRIMARY KEY (game_id, seq);
