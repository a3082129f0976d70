-- The first findings of a check's query, in its order.
SELECT * FROM (${findings}) AS findings ORDER BY ${order_by} LIMIT ${limit}
