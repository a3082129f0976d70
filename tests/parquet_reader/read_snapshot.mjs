// Reads a predlake snapshot (docs/export.md) with hyparquet, a pure-JS Parquet reader (not DuckDB),
// for tests/e2e/export.sh.
//   node read_snapshot.mjs SNAPSHOT_DIR
//       one line per table of the manifest: "TABLE ROWS" (rows read from every file it names);
//       fails when a file is unreadable or its row count differs from the manifest's.
//   node read_snapshot.mjs SNAPSHOT_DIR TABLE COLUMN...
//       one line per row: the columns' values separated by spaces, NULL as "NULL", decimals exact
//       with all their scale's digits (as DuckDB's CAST(x AS VARCHAR) writes them).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { asyncBufferFromFile, parquetMetadataAsync, parquetRead } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'

const [dir, table, ...columns] = process.argv.slice(2)
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))

// A DECIMAL's unscaled value, exactly: the schema's decimal annotation is dropped before reading so
// that hyparquet hands over the stored integer (or big-endian bytes) instead of a lossy Number.
function unscaled(value) {
  if (value instanceof Uint8Array) {
    let v = 0n
    for (const byte of value) v = v * 256n + BigInt(byte)
    const bits = BigInt(value.length * 8)
    if (value.length > 0 && v >= 2n ** (bits - 1n)) v -= 2n ** bits
    return v
  }
  return BigInt(value)
}

function formatDecimal(value, scale) {
  let v = unscaled(value)
  const negative = v < 0n
  if (negative) v = -v
  let digits = v.toString().padStart(scale + 1, '0')
  const text = scale > 0 ? digits.slice(0, -scale) + '.' + digits.slice(-scale) : digits
  return (negative ? '-' : '') + text
}

async function readFile(file, wanted) {
  const buffer = await asyncBufferFromFile(file)
  const metadata = await parquetMetadataAsync(buffer)
  const scales = {}
  for (const element of metadata.schema) {
    if (element.converted_type === 'DECIMAL' || element.logical_type?.type === 'DECIMAL') {
      scales[element.name] = element.scale ?? element.logical_type?.scale ?? 0
      delete element.converted_type
      delete element.logical_type
    }
  }
  let rows = []
  await parquetRead({
    file: buffer,
    metadata,
    columns: wanted,
    compressors,
    rowFormat: 'object',
    onComplete: (data) => { rows = data },
  })
  return { rows, scales, count: Number(metadata.num_rows) }
}

function text(value, scale) {
  if (value === null || value === undefined) return 'NULL'
  if (scale !== undefined) return formatDecimal(value, scale)
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  return String(value)
}

for (const t of manifest.tables) {
  if (table && t.name !== table) continue
  let total = 0
  for (const part of t.parts) {
    for (const f of part.files) {
      const { rows, scales, count } = await readFile(join(dir, f), table ? columns : undefined)
      if (rows.length !== count) throw new Error(`${f}: read ${rows.length} of ${count} rows`)
      total += rows.length
      if (table) {
        for (const row of rows) {
          console.log(columns.map((c) => text(row[c], scales[c])).join(' '))
        }
      }
    }
  }
  if (total !== t.rows) throw new Error(`${t.name}: read ${total} rows, the manifest says ${t.rows}`)
  if (!table) console.log(`${t.name} ${total}`)
}
