-- +goose Up
-- The language a person reads the site and their mail in: "en", "es" or
-- "it"; empty until they choose, when the browser's language decides.
ALTER TABLE users ADD COLUMN lang text NOT NULL DEFAULT ''
    CHECK (lang IN ('', 'en', 'es', 'it'));

-- +goose Down
ALTER TABLE users DROP COLUMN lang;
