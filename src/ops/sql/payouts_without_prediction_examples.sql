-- The orphan payouts of one kind (inside: inside or NOT inside).
SELECT ID, slot, timestamp, epoch_s FROM (${orphans}) WHERE ${inside}
