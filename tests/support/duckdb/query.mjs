// query.mjs - DuckDB as an oracle for the end-to-end tests.
//
//   node query.mjs [--csv] SQL
//   node query.mjs --batch FILE
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
// With --batch, FILE holds one SQL statement a line (as a JSON string) and
// every statement's rows are one JSON line on stdout, in FILE's order: an
// array of rows, each an array of the values as above (a failing statement
// prints {"error": MESSAGE} and the rest still run), all in one DuckDB, so
// that many queries do not each pay for starting node
// (tests/e2e/query_diff.sh).
// Exit status 1 with the error on stderr when the SQL fails.
import { DuckDBInstance } from '@duckdb/node-api';
import { csvCell } from './cells.mjs';

const args = process.argv.slice(2);
const asCsv = args[0] === '--csv';
const batch = args[0] === '--batch' ? args[1] : null;
const sql = asCsv ? args[1] : args[0];
if (!sql || (args[0] === '--batch' && !batch)) {
    process.stderr.write('usage: node query.mjs [--csv] SQL | --batch FILE\n');
    process.exit(2);
}
const json = (v) => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : JSON.stringify(String(v));
    return JSON.stringify(typeof v === 'string' ? v : String(v));
};
if (batch) {
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const { readFileSync } = await import('node:fs');
    for (const line of readFileSync(batch, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        try {
            const rows = (await con.runAndReadAll(JSON.parse(line))).getRows();
            process.stdout.write('[' + rows.map((row) => '[' + row.map(json).join(',') + ']').join(',') + ']\n');
        } catch (err) {
            process.stdout.write(JSON.stringify({ error: err.message }) + '\n');
        }
    }
    process.exit(0);
}
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
