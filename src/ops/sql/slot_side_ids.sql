-- A table's rows whose ID is one of a query's (the NULL-slot range of a ranged join).
(SELECT ${columns} FROM ${table} WHERE ID IN (${ids}))
