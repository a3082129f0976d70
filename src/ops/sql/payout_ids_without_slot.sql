-- The IDs of the payouts stored without a slot (the NULL-slot range looks their predictions up by ID).
SELECT ID FROM pdr_payouts WHERE slot IS NULL
