-- Every watermark past a drop's cut moved back to it (never below its start), now (unix ms).
UPDATE predlake_watermarks SET watermark_ms = greatest(start_ms, ${from_ms}), updated_at_ms = ${now_ms} WHERE watermark_ms > ${from_ms}
