// query.mjs - DuckDB as an oracle for the end-to-end tests.
//
//   node query.mjs [--csv] SQL
//
// Runs SQL in an in-memory DuckDB (@duckdb/node-api, pinned by
// package-lock.json, installed here by scripts/deps.sh) and prints the
// rows of the result on stdout:
//   - by default each row as a JSON object on its own line, columns in
//     order: integers (BIGINT, HUGEINT) as JSON integers, other numbers as
//     JSON numbers, NULL as null, the rest as strings (tests/e2e/output.sh);
//   - with --csv as CSV without a header, quoted as dmap's CSV outfiles
//     quote (a value with a comma, a quote or a line break is quoted,
//     quotes doubled), NULL as the empty string (tests/e2e/agg_exact.sh).
// Exit status 1 with the error on stderr when the SQL fails.
import { DuckDBInstance } from '@duckdb/node-api';
import { csvCell } from './cells.mjs';

const args = process.argv.slice(2);
const asCsv = args[0] === '--csv';
const sql = asCsv ? args[1] : args[0];
if (!sql) {
    process.stderr.write('usage: node query.mjs [--csv] SQL\n');
    process.exit(2);
}
const json = (v) => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : JSON.stringify(String(v));
    return JSON.stringify(typeof v === 'string' ? v : String(v));
};
try {
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const reader = await con.runAndReadAll(sql);
    const names = reader.columnNames();
    const rows = reader.getRows();
    const lines = asCsv
        ? rows.map((row) => row.map(csvCell).join(','))
        : rows.map((row) => '{' + row.map((v, i) => JSON.stringify(names[i]) + ':' + json(v)).join(',') + '}');
    process.stdout.write(lines.length ? lines.join('\n') + '\n' : '');
} catch (err) {
    process.stderr.write(`query.mjs: ${err.message}\n`);
    process.exit(1);
}
