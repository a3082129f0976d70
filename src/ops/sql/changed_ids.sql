-- The rows whose ID is one of a changed row's.
ID IN (SELECT ID FROM ${table} WHERE ${changed})
