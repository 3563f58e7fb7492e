-- FamilySync schema, migration 0007: daily totals (PROTOCOL §9.2).
--
-- A device's running totals for a day are one `DailyTotals` record a day in its zone. The
-- retention job finds those of days past retention by their date.
CREATE INDEX records_totals_date_idx ON records ((fields ->> 'date')) WHERE record_type = 'DailyTotals' AND NOT deleted;
