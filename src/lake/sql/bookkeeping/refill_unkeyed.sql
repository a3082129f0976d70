-- The rows of the table set aside, in their order, into the table made anew; then the old one goes.
INSERT INTO ${table} (${columns}) SELECT ${columns} FROM ${table}__keyed;
DROP TABLE ${table}__keyed
