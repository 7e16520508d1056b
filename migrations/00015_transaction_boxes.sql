-- +goose Up
-- Where on its page a PDF's or a scan's transaction was read from (statement.Box): fractions of
-- the page's width and height from its top-left corner, so that the dashboard can outline the
-- row on the page drawn at any size. NULL for other formats, and where the reader could not say.
ALTER TABLE parse_transactions ADD COLUMN box_left real CHECK (box_left BETWEEN 0 AND 1);
ALTER TABLE parse_transactions ADD COLUMN box_top real CHECK (box_top BETWEEN 0 AND 1);
ALTER TABLE parse_transactions ADD COLUMN box_right real CHECK (box_right BETWEEN 0 AND 1);
ALTER TABLE parse_transactions ADD COLUMN box_bottom real CHECK (box_bottom BETWEEN 0 AND 1);
ALTER TABLE parse_transactions ADD CONSTRAINT parse_transactions_box
    CHECK ((box_left IS NULL) = (box_top IS NULL) AND (box_left IS NULL) = (box_right IS NULL) AND (box_left IS NULL) = (box_bottom IS NULL));

-- +goose Down
ALTER TABLE parse_transactions DROP CONSTRAINT parse_transactions_box;
ALTER TABLE parse_transactions DROP COLUMN box_bottom;
ALTER TABLE parse_transactions DROP COLUMN box_right;
ALTER TABLE parse_transactions DROP COLUMN box_top;
ALTER TABLE parse_transactions DROP COLUMN box_left;
