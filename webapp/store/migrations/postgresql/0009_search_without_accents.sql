-- Migration 9 on PostgreSQL: search without accents, as SQLite's FTS5 does (its unicode61 tokenizer removes
-- diacritics), so a search for `muller` finds `Müller` on both stores. unaccent ships with PostgreSQL (contrib)
-- and is a trusted extension: the owner of the database may create it. Only payloads with accents change words.
CREATE EXTENSION IF NOT EXISTS unaccent;
UPDATE events SET words = to_tsvector('simple', regexp_replace(unaccent(left(payload, 100000)), '[^[:alnum:]]+', ' ', 'g'))
 WHERE words IS NOT NULL AND left(payload, 100000) <> unaccent(left(payload, 100000));
