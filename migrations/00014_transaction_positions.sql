-- +goose Up
-- Where each parsed transaction stands in its file (statement.Position): the line of a text
-- format, the record where records span lines, the page of a PDF, the sheet of a workbook, the
-- path of an XML entry. Review reasons name lines, so the dashboard can show which rows they are
-- about; NULL where the format has no such part (and for jobs stored before this column).
ALTER TABLE parse_transactions ADD COLUMN pos_line integer CHECK (pos_line > 0);
ALTER TABLE parse_transactions ADD COLUMN pos_record integer CHECK (pos_record > 0);
ALTER TABLE parse_transactions ADD COLUMN pos_page integer CHECK (pos_page > 0);
ALTER TABLE parse_transactions ADD COLUMN pos_sheet text;
ALTER TABLE parse_transactions ADD COLUMN pos_path text;

-- +goose Down
ALTER TABLE parse_transactions DROP COLUMN pos_path;
ALTER TABLE parse_transactions DROP COLUMN pos_sheet;
ALTER TABLE parse_transactions DROP COLUMN pos_page;
ALTER TABLE parse_transactions DROP COLUMN pos_record;
ALTER TABLE parse_transactions DROP COLUMN pos_line;
