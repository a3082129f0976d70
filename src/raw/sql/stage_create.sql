-- A raw table's staging table STAGE: a TEMP table (private to the connection, never in the
-- database file) with the columns COLUMNS (decimals split: raw/store.cpp).
CREATE OR REPLACE TEMP TABLE ${stage} (${columns})
