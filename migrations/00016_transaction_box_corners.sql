-- +goose Up
-- The corners of a transaction's print when it runs askew on its page (statement.Box.Corners):
-- x then y of the top-left, top-right, bottom-right and bottom-left corners, as fractions of
-- the page like the box's sides, which then bound them. NULL where the print runs level.
ALTER TABLE parse_transactions ADD COLUMN box_corners real[]
    CHECK (box_corners IS NULL OR (box_left IS NOT NULL AND array_length(box_corners, 1) = 8 AND array_ndims(box_corners) = 1));

-- +goose Down
ALTER TABLE parse_transactions DROP COLUMN box_corners;
