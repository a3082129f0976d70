-- Takes the rows where ROWS off the staging table STAGE.
DELETE FROM ${stage} WHERE ${rows}
