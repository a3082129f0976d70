-- A keyed table renamed aside, so that the schema's DDL creates it anew without its key.
ALTER TABLE ${table} RENAME TO ${table}__keyed
